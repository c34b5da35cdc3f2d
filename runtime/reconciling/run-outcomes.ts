/**
 * What a reconciler's run leads to: when it runs again although nothing changes. A success runs
 * again after its `requeueAfter` or the resync period, whichever comes first; an error after the
 * per-object backoff (doubling from `backoffBase` up to `backoffCap`), or the delay of its
 * `TemporaryError`; a `PermanentError` not until the object changes.
 */
import type { ReconcilingSettings } from '../config/settings.ts';
import { PermanentError, TemporaryError, thrownText } from '../structs/errors.ts';
import type { Logger } from '../logging/index.ts';
import type { HandlerOutcome } from '../observation/metrics.ts';

export type RunOutcome =
  | { kind: 'success'; requeueAfter: number | undefined }
  | { kind: 'temporary' | 'arbitrary'; delay: number; message: string }
  | { kind: 'permanent'; message: string };

/** The delay before the retry after `failures` failures in a row (1 for the first). */
export function backoffDelay(failures: number, settings: ReconcilingSettings): number {
  return Math.min(settings.backoffCap, settings.backoffBase * 2 ** Math.max(0, failures - 1));
}

/** The outcome of a failed run, the `failures` counting it. */
export function failureOf(error: unknown, failures: number, settings: ReconcilingSettings): RunOutcome {
  const message = thrownText(error);
  if (error instanceof PermanentError) return { kind: 'permanent', message };
  if (error instanceof TemporaryError) return { kind: 'temporary', delay: error.delay ?? 0, message };
  return { kind: 'arbitrary', delay: backoffDelay(failures, settings), message };
}

/**
 * The outcome of a run that returned `result`: its `requeueAfter` if it is a number of seconds.
 * Anything else a reconciler returns is not an error of the object, but a warning.
 */
export function successOf(result: unknown, logger: Logger, title: string): RunOutcome {
  if (result === undefined || result === null || typeof result !== 'object') {
    if (result !== undefined && result !== null) logger.warning(`${title} returned ${typeof result}; ignored.`);
    return { kind: 'success', requeueAfter: undefined };
  }
  const requeueAfter = (result as { requeueAfter?: unknown }).requeueAfter;
  if (requeueAfter === undefined || requeueAfter === null) return { kind: 'success', requeueAfter: undefined };
  if (typeof requeueAfter !== 'number' || !Number.isFinite(requeueAfter) || requeueAfter < 0) {
    logger.warning(`${title} returned requeueAfter=${String(requeueAfter)}, not a number of seconds; ignored.`);
    return { kind: 'success', requeueAfter: undefined };
  }
  return { kind: 'success', requeueAfter };
}


/** How the metrics name a run's outcome: a `PermanentError` is a failure for good, any other error a retry. */
export function outcomeName(outcome: RunOutcome): HandlerOutcome {
  return outcome.kind === 'success' ? 'success' : outcome.kind === 'permanent' ? 'failure' : 'retry';
}
