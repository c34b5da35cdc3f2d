/**
 * Running one handler once, and what its outcome means for its progress (Kopf §5.7):
 * limits are checked before the call (timeout since the first attempt, total attempts), and
 * failures look ahead — a retry that would exceed a limit fails the handler now, not later.
 */
import {
  HandlerChildrenRetry, HandlerRetriesError, HandlerTimeoutError, PermanentError, TemporaryError, type ErrorsMode,
} from '../structs/errors.ts';
import type { Logger } from '../logging/index.ts';
import type { HandlerBase } from '../registry/handlers.ts';
import { formatSeconds, formatTimedelta } from './durations.ts';

/** The persisted state of one handler, field for field as Kopf stores it. */
export interface HandlerState {
  started: Date;
  stopped?: Date;
  delayed?: Date;
  purpose?: string;
  retries: number;
  success: boolean;
  failure: boolean;
  message?: string;
  subrefs?: string[];
}

export interface Attempt {
  retry: number;
  started: Date;
  runtime: number;
}

export interface Executed {
  state: HandlerState;
  /** The handler's return value, when it succeeded. */
  result?: unknown;
  finished: boolean;
}

/** What handlers are called "in the logs": `Handler 'create_fn'`, `Activity 'configure'`. */
export function displayName(handler: Pick<HandlerBase, 'id'>, title = 'Handler'): string {
  return `${title} '${handler.id}'`;
}

export async function executeOnce(
  handler: HandlerBase,
  previous: HandlerState | undefined,
  options: { purpose?: string; defaultBackoff: number; logger: Logger; title?: string; now?: Date; subrefs?: () => string[] | undefined },
  invoke: (attempt: Attempt) => Promise<unknown>,
): Promise<Executed> {
  const now = options.now ?? new Date();
  const name = displayName(handler, options.title);
  const started = previous?.started ?? now;
  const runtime = (now.getTime() - started.getTime()) / 1000;
  const attempts = previous?.retries ?? 0;
  const base = { started, purpose: options.purpose ?? previous?.purpose };
  const done = (fields: Partial<HandlerState>, result?: unknown): Executed => ({
    state: { ...base, retries: attempts + 1, success: false, failure: false, ...fields, subrefs: options.subrefs?.() ?? previous?.subrefs },
    result, finished: Boolean(fields.success || fields.failure),
  });
  const failed = (error: Error): Executed => done({ stopped: now, failure: true, message: error.message }, undefined);

  if (handler.timeout !== undefined && runtime >= handler.timeout) {
    const error = new HandlerTimeoutError(`${name} has timed out after ${formatTimedelta(runtime)}.`);
    options.logger.error(`${name} failed permanently: ${error.message}`);
    return { ...failed(error), state: { ...failed(error).state, retries: attempts } };
  }
  if (handler.retries !== undefined && attempts >= handler.retries) {
    const error = new HandlerRetriesError(`${name} has exceeded ${attempts} retries.`);
    options.logger.error(`${name} failed permanently: ${error.message}`);
    return { ...failed(error), state: { ...failed(error).state, retries: attempts } };
  }

  options.logger.debug(`${name} is invoked.`);
  try {
    const result = await invoke({ retry: attempts, started, runtime });
    options.logger.info(`${name} succeeded.`);
    return done({ stopped: new Date(), success: true }, result);
  } catch (error) {
    return classify(error, handler, name, { now, runtime, attempts, defaultBackoff: options.defaultBackoff, logger: options.logger, done, failed });
  }
}

interface Classification {
  now: Date; runtime: number; attempts: number; defaultBackoff: number; logger: Logger;
  done: (fields: Partial<HandlerState>) => Executed;
  failed: (error: Error) => Executed;
}

function classify(error: unknown, handler: HandlerBase, name: string, c: Classification): Executed {
  const retryAt = (delay: number | null) => new Date(c.now.getTime() + (delay ?? 0) * 1000);
  const wouldTimeOut = (delay: number | null) => handler.timeout !== undefined && c.runtime + (delay ?? 0) >= handler.timeout;
  const wouldExceed = () => handler.retries !== undefined && c.attempts + 1 >= handler.retries;
  const message = error instanceof Error ? error.message : String(error);

  if (error instanceof HandlerChildrenRetry) {
    c.logger.debug(`${name} has unfinished sub-handlers. Will retry soon.`);
    return c.done({ delayed: retryAt(error.delay), message: error.message });
  }
  if (error instanceof TemporaryError) {
    if (wouldTimeOut(error.delay)) {
      c.logger.error(`${name} failed temporarily but will time out after ${formatSeconds(handler.timeout!)} seconds: ${message}`);
      return c.failed(new HandlerTimeoutError(`${name} has timed out after ${formatTimedelta(c.runtime)}.`));
    }
    if (wouldExceed()) {
      c.logger.error(`${name} failed temporarily but will exceed ${handler.retries} retries: ${message}`);
      return c.failed(new HandlerRetriesError(`${name} has exceeded ${c.attempts + 1} retries.`));
    }
    c.logger.error(`${name} failed temporarily: ${message}`);
    return c.done({ delayed: retryAt(error.delay), message });
  }
  if (error instanceof PermanentError) {
    c.logger.error(`${name} failed permanently: ${message}`);
    return c.failed(error);
  }
  return classifyArbitrary(error, message, handler, name, c, retryAt, wouldTimeOut, wouldExceed);
}

function classifyArbitrary(
  error: unknown, message: string, handler: HandlerBase, name: string, c: Classification,
  retryAt: (delay: number) => Date, wouldTimeOut: (delay: number) => boolean, wouldExceed: () => boolean,
): Executed {
  const mode: ErrorsMode = handler.errors ?? 'temporary';
  const log = (tail: string) => c.logger.error(`${name} failed with an exception and ${tail}: ${message}`, error);
  if (mode === 'ignored') {
    log('will ignore it');
    return c.done({ stopped: new Date(), success: true });
  }
  if (mode === 'permanent') {
    log('will stop now');
    return c.failed(error instanceof Error ? error : new Error(message));
  }
  const backoff = handler.backoff ?? c.defaultBackoff;
  if (wouldTimeOut(backoff)) {
    log(`will stop now (it would time out in ${formatSeconds(handler.timeout!)} seconds on the next attempt)`);
    return c.failed(new HandlerTimeoutError(`${name} has timed out after ${formatTimedelta(c.runtime)}.`));
  }
  if (wouldExceed()) {
    log(`will stop now (it would exceed ${handler.retries} retries on the next attempt)`);
    return c.failed(new HandlerRetriesError(`${name} has exceeded ${c.attempts + 1} retries.`));
  }
  log(`will try again in ${formatSeconds(backoff)} seconds`);
  return c.done({ delayed: retryAt(backoff), message });
}
