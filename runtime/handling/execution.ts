/**
 * Running one handler once: check its limits, call it, and turn what happened into its next
 * state and Kopf's log line. The arithmetic and the messages are the storage layer's
 * (runtime/progress/outcomes.ts, checked against Kopf); this is where they meet a real call, made
 * as every handler's is (`calls.ts`).
 */
import type { Logger } from '../logging/index.ts';
import type { HandlerBase } from '../registry/handlers.ts';
import type { HandlerOutcome, HandlerObserver } from '../observation/metrics.ts';
import { callHandler } from './calls.ts';
import {
  checkLimits, freshState, handlerTitle, outcomeOf, withOutcome, type HandlerState, type Outcome, type Timestamp,
} from '../progress/index.ts';

export type { HandlerState };

/** What a handler learns about the attempt it is in. */
export interface Attempt {
  /** How many attempts were made before this one (0 on the first). */
  retry: number;
  /** When the first attempt started. */
  started: Date;
  /** Seconds since the first attempt started. */
  runtime: number;
}

export interface Executed {
  state: HandlerState;
  outcome: Outcome;
}

export interface ExecutionOptions {
  now: Timestamp;
  defaultBackoff: number;
  logger: Logger;
  /** `Handler`, `Activity`, … as Kopf names them in its messages. */
  noun?: string;
  purpose?: string | null;
  /** The ids of sub-handlers registered during the call, for the record's `subrefs`. */
  subrefs?: () => readonly string[];
  /**
   * Aborted to cancel the handler (the operator stops). A call that fails once it is aborted was
   * cancelled: that is no outcome to record, and the error goes on up, as Kopf's cancellation does.
   */
  cancelled?: AbortSignal;
  /** Where the run is counted and timed (the operator's metrics), if anywhere. */
  observer?: HandlerObserver;
}

export async function executeOnce(
  handler: HandlerBase,
  previous: HandlerState | undefined,
  options: ExecutionOptions,
  invoke: (attempt: Attempt) => Promise<unknown>,
): Promise<Executed> {
  const { now, logger } = options;
  const title = handlerTitle(handler.id, options.noun);
  const state = previous ?? freshState(now, options.purpose ?? null);
  const policy = {
    timeout: handler.timeout,
    retries: handler.retries,
    backoff: handler.backoff ?? options.defaultBackoff,
    errors: handler.errors ?? 'temporary' as const,
  };
  let outcome = checkLimits(title, state, policy, now);
  let thrown: unknown;
  if (outcome) {
    // A run that its limits end before the call is reported, but not timed.
    options.observer?.ran(handler.id, outcomeName(outcome), undefined);
  } else {
    logger.debug(() => `${title} is invoked.`);
    const attempt: Attempt = {
      retry: state.retries,
      started: state.started.toDate(),
      runtime: now.microsSince(state.started) / 1e6,
    };
    outcome = await callHandler({
      id: handler.id, retry: attempt.retry, object: logger.ref, cause: options.purpose, observer: options.observer,
      returned: (result) => outcomeOf(title, { ok: true, result, subrefs: options.subrefs?.() }, state, policy, now),
      threw: (error) => {
        if (options.cancelled?.aborted) {
          logger.warning(`${title} is cancelled. Will escalate.`);
          throw error;
        }
        thrown = error;
        return outcomeOf(title, { ok: false, error, subrefs: options.subrefs?.() }, state, policy, now);
      },
      named: outcomeName,
    }, () => invoke(attempt));
  }
  const { level, message, traceback } = outcome.log;
  // The traceback is the handler's own error, not the limit error it may have turned into.
  logger[level](message, traceback ? thrown : undefined);
  return { state: withOutcome(state, outcome, now), outcome };
}

/** How the metrics name an outcome: a success, a failure to be retried, or one for good. */
function outcomeName(outcome: Outcome): HandlerOutcome {
  return outcome.exception === null ? 'success' : outcome.final ? 'failure' : 'retry';
}
