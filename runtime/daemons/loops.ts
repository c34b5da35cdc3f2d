/**
 * The tasks behind timers and daemons (as Kopf's kopf/_core/engines/daemons.py runs them). Each
 * calls its handler as other handlers are called (limits, retries, Kopf's messages; the state is
 * kept in memory), and after every call applies its own patch: the result into `status.<id>`, and
 * whatever the handler put into `patch`.
 *
 *   daemon: initial delay → call until it succeeds or fails for good, sleeping the retry delays.
 *   timer:  initial delay → [wait for idleness] → call → sleep the interval (or to the next point
 *           of its grid, if sharp; or the retry delay after an error) → again, until stopped.
 * Every sleep ends when the task is told to stop.
 */
import type { KubeObject } from '../structs/resources.ts';
import { Patch, type PatchFn } from '../structs/patches.ts';
import { thrownText } from '../structs/errors.ts';
import type { DaemonHandler, TimerHandler } from '../registry/handlers.ts';
import type { SpawningContext } from '../registry/contexts.ts';
import { executeOnce, type Attempt, type HandlerState } from '../handling/execution.ts';
import { deliverResult, Timestamp } from '../progress/index.ts';
import { applyPlan } from '../actions/application.ts';
import { handlerReport, invokeForResult, objectContext } from '../actions/invocation.ts';
import type { ResourceScope } from '../actions/scope.ts';
import type { ObjectDaemons, Spawned } from './object-daemons.ts';

/** What one task works with: its record, its object's memory, and the resource's processor. */
export interface TaskEnv {
  spawned: Spawned;
  object: ObjectDaemons;
  proc: ResourceScope;
}

export async function runDaemon(env: TaskEnv, handler: DaemonHandler): Promise<void> {
  const { stopper, logger, title } = env.spawned;
  if (handler.initialDelay) await stopper.wait(handler.initialDelay);
  const call = new Call(env);
  while (!stopper.stopped) {
    const state = await call.once();
    if (state.success || state.failure) break;
    await stopper.wait(secondsUntil(state));
  }
  const how = stopper.stopped ? 'on request' : 'on its own';
  logger.debug(`${title} has exited ${how} and will not be retried or restarted.`);
}

export async function runTimer(env: TaskEnv, handler: TimerHandler): Promise<void> {
  const { stopper } = env.spawned;
  const { interval, idle, sharp } = handler;
  if (handler.initialDelay) await stopper.wait(handler.initialDelay);
  const call = new Call(env);
  while (!stopper.stopped) {
    if (idle !== undefined && !(await idled(env, idle))) break;
    const started = performance.now();
    const state = await call.once();
    // An error to retry keeps the count and sleeps its delay; a final outcome starts the retries anew.
    if (!state.success && !state.failure) {
      await stopper.wait(secondsUntil(state));
      continue;
    }
    call.reset();
    if (interval !== undefined) await stopper.wait(intervalWait(interval, sharp, (performance.now() - started) / 1000));
    else if (idle !== undefined) await nextChange(env, idle, started);
    else break; // neither interval nor idle: once
  }
}

/**
 * Seconds from the end of a call to the next: the whole interval; or, if sharp, what is left of the
 * interval the call began (the next point of the grid), so that a slow call does not shift it.
 */
export function intervalWait(interval: number, sharp: boolean | undefined, callSeconds: number): number {
  return sharp ? interval - (callSeconds % interval) : interval;
}

/** Waits until the essence has not changed for `idle` seconds; `false` if stopped meanwhile. */
async function idled(env: TaskEnv, idle: number): Promise<boolean> {
  const { stopper } = env.spawned;
  for (;;) {
    const left = env.object.idleResetAt + idle * 1000 - performance.now();
    if (stopper.stopped) return false;
    if (left <= 0) return true;
    await stopper.wait(left / 1000);
  }
}

/** An idle timer without an interval runs again only after the next change (checked every `idle` s). */
async function nextChange(env: TaskEnv, idle: number, since: number): Promise<void> {
  while (env.object.idleResetAt <= since && !env.spawned.stopper.stopped) await env.spawned.stopper.wait(idle);
}

function secondsUntil(state: HandlerState): number {
  return state.delayed ? Math.max(0, state.delayed.secondsSince(Timestamp.now())) : 0;
}

/** Calls one handler for one object, attempt after attempt, with its state and leftover patch in memory. */
class Call {
  private readonly env: TaskEnv;
  private state: HandlerState | undefined;
  /** Transformations refused by a conflict: tried again with the next patch, as Kopf does. */
  private leftover: PatchFn[] = [];

  constructor(env: TaskEnv) { this.env = env; }

  reset(): void { this.state = undefined; }

  async once(): Promise<HandlerState> {
    const { spawned, object, proc } = this.env;
    const { handler, logger } = spawned;
    const patch = new Patch<KubeObject>({}, { body: object.body, fns: this.leftover });
    const options = {
      now: Timestamp.now(), defaultBackoff: proc.settings.execution.defaultBackoff, logger,
      noun: handler.kind === 'timer' ? 'Timer' : 'Daemon', cancelled: spawned.canceller.signal,
      report: handlerReport(proc, handler.kind),
    };
    const executed = await executeOnce(handler, this.state, options, (attempt) => this.invoke(attempt, patch));
    this.state = executed.state;
    deliverResult(patch, handler.id, executed.outcome);
    try {
      const outcome = await applyPlan(proc, object.body, { work: patch }, logger);
      this.leftover = outcome.conflict ? [...patch.fns] : [];
    } catch (error) {
      logger.error(`${spawned.title} could not write its results and patch: ${thrownText(error)}`, error);
    }
    return executed.state;
  }

  private async invoke(attempt: Attempt, patch: Patch<KubeObject>): Promise<unknown> {
    const { spawned, object, proc } = this.env;
    const ctx = liveContext(this.env, patch, attempt);
    return invokeForResult(proc, spawned.logger, object.body, spawned.handler.fn, ctx);
  }
}

/** The handler's context, whose object parts are the object's live views (as in Kopf). */
function liveContext(env: TaskEnv, patch: Patch<KubeObject>, attempt: Attempt): SpawningContext<KubeObject> {
  const { spawned, object, proc } = env;
  const memory = { memo: object.memo, initial: false };
  const { body, spec, status, meta, labels, annotations } = object.views;
  return {
    ...objectContext(object.body, memory, spawned.logger, patch, proc),
    body, spec, status, meta, labels, annotations,
    ...attempt, param: spawned.handler.param, stopped: spawned.stopper, signal: spawned.canceller.signal,
  };
}
