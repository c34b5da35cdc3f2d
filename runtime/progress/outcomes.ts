/**
 * What one attempt of a handler means for its progress (Kopf's `execute_handler_once` in
 * `kopf/_core/actions/execution.py`): whether it is final, when to retry, what error text to
 * store, and the log line Kopf writes.
 *
 * Before an attempt, the limits are checked strictly: `timeout` seconds since the first attempt,
 * `retries` attempts in total. After a failure, they are checked by look-ahead: a retry that would
 * run past the timeout (now + delay) or be one attempt too many fails the handler now.
 * The messages are Kopf's, word for word: they are stored in records and matched by tests.
 *
 * One attempt: `checkLimits` (if it gives an outcome, the handler is not called), else call the
 * handler and take `outcomeOf` its attempt; then `withOutcome(state, outcome, now)` is the next state.
 */
import {
  HandlerChildrenRetry,
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  TemporaryError,
  thrownText,
  type ErrorsMode,
} from '../structs/errors.ts';
import { pythonNumber, pythonRepr } from './python.ts';
import { runtimeOf, sortedIds, type HandlerState } from './states.ts';
import { pythonTimedelta, type Timestamp } from './timestamps.ts';

/** A handler's retry options, with the defaults already applied. */
export interface RetryPolicy {
  /** Seconds since the first attempt after which the handler fails; none if absent. */
  readonly timeout?: number | null;
  /** Attempts allowed in total; unlimited if absent. */
  readonly retries?: number | null;
  /** Seconds before retrying after an arbitrary error (Kopf: `settings.execution.default_backoff`). */
  readonly backoff: number;
  /** What an arbitrary error means (Kopf's default for changing handlers: temporary). */
  readonly errors: ErrorsMode;
}

/** How the attempt ended: the handler's return value, or what it threw. */
export type Attempt =
  | { readonly ok: true; readonly result: unknown; readonly subrefs?: readonly string[] }
  | { readonly ok: false; readonly error: unknown; readonly subrefs?: readonly string[] };

export interface OutcomeError {
  /** What was thrown, or the timeout/retries error the limits turned it into. */
  readonly error: unknown;
  /** The text stored as the record's `message` (Python's `str(exception)`). */
  readonly message: string;
}

export interface OutcomeLog {
  readonly level: 'debug' | 'info' | 'error';
  readonly message: string;
  /** Whether Kopf logs the traceback too (arbitrary errors only). */
  readonly traceback: boolean;
}

export interface Outcome {
  /** No more attempts in this cycle: succeeded, failed for good, or an ignored error. */
  readonly final: boolean;
  /** Seconds until the next attempt; `null` for none or "at once". */
  readonly delay: number | null;
  /** What the handler returned (only for a success). */
  readonly result: unknown;
  readonly exception: OutcomeError | null;
  readonly subrefs: readonly string[];
  readonly log: OutcomeLog;
}

/** How Kopf names a handler in messages: `Handler 'create_fn'`, `Daemon 'monitor'`, … */
export function handlerTitle(id: string, noun = 'Handler'): string {
  return `${noun} ${pythonRepr(id)}`;
}

/** The strict checks before an attempt: a final failure if a limit is reached, else `null`. */
export function checkLimits(title: string, state: HandlerState, policy: RetryPolicy, now: Timestamp): Outcome | null {
  const runtime = runtimeOf(state, now);
  if (policy.timeout !== null && policy.timeout !== undefined && runtime / 1e6 >= policy.timeout) {
    return limitFailure(new HandlerTimeoutError(`${title} has timed out after ${pythonTimedelta(runtime)}.`));
  }
  if (policy.retries !== null && policy.retries !== undefined && state.retries >= policy.retries) {
    return limitFailure(new HandlerRetriesError(`${title} has exceeded ${state.retries} retries.`));
  }
  return null;
}

function limitFailure(error: Error): Outcome {
  return failure(true, error, error.message, null, [], { level: 'error', message: error.message, traceback: false });
}

/** The outcome of an attempt that was made. */
export function outcomeOf(
  title: string,
  attempt: Attempt,
  state: HandlerState,
  policy: RetryPolicy,
  now: Timestamp,
): Outcome {
  const subrefs = attempt.subrefs ?? [];
  if (attempt.ok) {
    return {
      final: true,
      delay: null,
      result: attempt.result,
      exception: null,
      subrefs,
      log: log('info', `${title} succeeded.`),
    };
  }
  const error = attempt.error;
  const { message, shown } = errorText(error);
  const runtime = runtimeOf(state, now) / 1e6;
  const pastTimeout = (
    delay: number
  ) => policy.timeout !== null && policy.timeout !== undefined && runtime + delay >= policy.timeout;
  const pastRetries = policy.retries !== null && policy.retries !== undefined && state.retries + 1 >= policy.retries;

  if (error instanceof HandlerChildrenRetry) {
    return failure(
      false,
      error,
      message,
      error.delay,
      subrefs,
      log('debug', `${title} has unfinished sub-handlers. Will retry soon.`),
    );
  }
  if (error instanceof TemporaryError) {
    if (pastTimeout(error.delay || 0)) {
      const text =
        `${title} failed temporarily but will time out after ${pythonNumber(policy.timeout ?? 0)} seconds: ${shown}`;
      return failure(true, new HandlerTimeoutError(text), text, null, subrefs, log('error', text));
    }
    if (pastRetries) {
      const text = `${title} failed temporarily but will exceed ${pythonNumber(policy.retries ?? 0)} retries: ${shown}`;
      return failure(true, new HandlerRetriesError(text), text, null, subrefs, log('error', text));
    }
    return failure(false, error, message, error.delay, subrefs, log('error', `${title} failed temporarily: ${shown}`));
  }
  if (error instanceof HandlerTimeoutError || error instanceof HandlerRetriesError) {
    return failure(true, error, message, null, subrefs, log('error', shown));
  }
  if (error instanceof PermanentError) {
    return failure(true, error, message, null, subrefs, log('error', `${title} failed permanently: ${shown}`));
  }
  return arbitraryOutcome(title, error, message, shown, subrefs, policy, pastTimeout(policy.backoff), pastRetries);
}

function arbitraryOutcome(
  title: string, error: unknown, message: string, shown: string, subrefs: readonly string[],
  policy: RetryPolicy, pastTimeout: boolean, pastRetries: boolean,
): Outcome {
  const traced = (text: string): OutcomeLog => ({ level: 'error', message: text, traceback: true });
  if (policy.errors === 'ignored') {
    const text = `${title} failed with an exception and will ignore it: ${shown}`;
    return { final: true, delay: null, result: undefined, exception: null, subrefs, log: traced(text) };
  }
  if (policy.errors === 'temporary' && pastTimeout) {
    const text = `${title} failed with an exception and will stop now `
      + `(it would time out in ${pythonNumber(policy.timeout ?? 0)} seconds on the next attempt): ${shown}`;
    return failure(true, new HandlerTimeoutError(text), text, null, subrefs, traced(text));
  }
  if (policy.errors === 'temporary' && pastRetries) {
    const text = `${title} failed with an exception and will stop now `
      + `(it would exceed ${pythonNumber(policy.retries ?? 0)} retries on the next attempt): ${shown}`;
    return failure(true, new HandlerRetriesError(text), text, null, subrefs, traced(text));
  }
  if (policy.errors === 'temporary') {
    const text =
      `${title} failed with an exception and will try again in ${pythonNumber(policy.backoff)} seconds: ${shown}`;
    return failure(false, error, message, policy.backoff, subrefs, traced(text));
  }
  return failure(
    true,
    error,
    message,
    null,
    subrefs,
    traced(`${title} failed with an exception and will stop now: ${shown}`),
  );
}

function failure(
  final: boolean,
  error: unknown,
  message: string,
  delay: number | null,
  subrefs: readonly string[],
  logged: OutcomeLog,
): Outcome {
  return { final, delay, result: undefined, exception: { error, message }, subrefs, log: logged };
}

function log(level: OutcomeLog['level'], message: string): OutcomeLog {
  return { level, message, traceback: false };
}

/**
 * Python's `str(e)` (stored) and `str(e) or repr(e)` (shown in logs): an empty message shows as
 * `Name()`, as Python shows an exception raised without arguments.
 */
export function errorText(error: unknown): { message: string; shown: string } {
  if (error instanceof Error) return { message: error.message, shown: error.message || `${error.name}()` };
  const message = thrownText(error);
  return { message, shown: message };
}

/** The state after one attempt: Kopf's `HandlerState.with_outcome`. */
export function withOutcome(state: HandlerState, outcome: Outcome, now: Timestamp): HandlerState {
  const failed = outcome.exception !== null;
  return {
    ...state,
    stopped: state.stopped ?? (outcome.final ? now : null),
    delayed: outcome.delay === null ? null : now.plus(outcome.delay),
    success: outcome.final && !failed,
    failure: outcome.final && failed,
    retries: state.retries + 1,
    message: outcome.exception?.message ?? null,
    subrefs: sortedIds(new Set([...state.subrefs, ...outcome.subrefs])),
  };
}
