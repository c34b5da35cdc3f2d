/**
 * Operator-level handlers: startup (before any watching; the operator proceeds only when all
 * succeed), cleanup (on exit), login (authentication.ts) and probes (probing.ts).
 * They retry like resource handlers, but their progress lives
 * in memory: there is no object to store it on.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceClient } from '../kube/index.ts';
import type { Activity, Memo } from '../registry/contexts.ts';
import type { Indices } from '../indices/indices.ts';
import type { ActivityHandler } from '../registry/handlers.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import { executeOnce, type Attempt, type HandlerState } from '../handling/execution.ts';
import { handlerObserver } from '../handling/observers.ts';
import { Timestamp } from '../progress/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import { OperatorIndexers } from '../indices/indexers.ts';
import { clockNow } from '../structs/clock.ts';

/** For activities run without an operator's indexes (tests). */
const NO_INDICES = new OperatorIndexers([]).indices;

/** A handler of an activity that failed for good, and why. */
export interface ActivityFailure {
  readonly id: string;
  readonly message: string;
}

export class ActivityError extends Error {
  /** The handlers that failed; their ids alone are for those who may see which failed but not why. */
  readonly failures: readonly ActivityFailure[];
  constructor(message: string, failures: readonly ActivityFailure[]) {
    super(message);
    this.name = 'ActivityError';
    this.failures = failures;
  }
}

export interface ActivityEnv {
  settings: OperatorSettings;
  logger: Logger;
  memo: Memo;
  client: ResourceClient;
  /** Ends the activity: no more retries, and the running handler is cancelled. */
  signal: AbortSignal;
  /** The operator's indexes, as far as they are built. */
  indices?: Indices;
  /** The operator's metrics, if kept: the activity handlers' runs are reported there. */
  metrics?: OperatorMetrics;
}

/**
 * Runs all handlers of an activity to completion, one at a time in registration order, retrying
 * the delayed ones. Resolves with the results that are not `undefined`/`null`, by handler id, when
 * all are done; rejects if any failed for good (except for cleanup: what fails there is logged).
 */
export async function runActivity(
  handlers: readonly ActivityHandler[], activity: Activity, env: ActivityEnv,
): Promise<Map<string, unknown>> {
  const logger = env.logger.child(`kopf.activities.${activity}`);
  const results = new Map<string, unknown>();
  const states = new Map<string, HandlerState>();
  const pending = () => handlers.filter((h) => { const s = states.get(h.id); return !s || !(s.success || s.failure); });
  const { signal } = env;
  const observer = handlerObserver(env.metrics, '', 'activity');
  while (pending().length && !signal.aborted) {
    for (const handler of pending()) {
      const state = states.get(handler.id);
      if (state?.delayed && state.delayed.secondsSince(Timestamp.now()) > 0) continue;
      const options = {
        now: Timestamp.now(),
        defaultBackoff: env.settings.execution.defaultBackoff,
        logger,
        noun: 'Activity',
        cancelled: signal,
        observer,
      };
      const indices = env.indices ?? NO_INDICES;
      const { settings, memo, client } = env;
      const context = {
        activity, settings, logger, memo, client, param: handler.param, signal, indices, now: clockNow,
      };
      const invoke = async (attempt: Attempt) => handler.fn({ ...context, ...attempt });
      // A cancelled handler has said so (execution.ts); the activity ends with it, as it would at its next retry.
      const executed = await executeOnce(handler, state, options, invoke).catch((error: unknown) => {
        if (signal.aborted) return undefined;
        throw error;
      });
      if (!executed) return results;
      states.set(handler.id, executed.state);
      const result = executed.outcome.result;
      if (result !== undefined && result !== null) results.set(handler.id, result);
    }
    const delays = pending().map((h) => Math.max(0, states.get(h.id)?.delayed?.secondsSince(Timestamp.now()) ?? 0));
    if (delays.length) await sleep(Math.min(...delays), signal);
  }
  const failed = handlers.filter((h) => states.get(h.id)?.failure);
  const failures = failed.map((h) => ({ id: h.id, message: states.get(h.id)?.message ?? '' }));
  if (failures.length && activity !== 'cleanup') {
    const each = failures.map((failure) => `${failure.id}: ${failure.message}`).join('; ');
    throw new ActivityError(`One or more ${activity} handlers failed: ${each}`, failures);
  }
  return results;
}
