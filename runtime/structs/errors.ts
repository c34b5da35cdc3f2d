/**
 * Errors a handler throws to steer its own retries, as in Kopf.
 * Anything else a handler throws is an "arbitrary" error, handled per the handler's `errors` mode.
 */
import { inspect } from 'node:util';

/** Retry the handler after `delay` seconds (60 by default; 0 or null: at once). */
export class TemporaryError extends Error {
  readonly delay: number | null;
  constructor(message = '', options: { delay?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TemporaryError';
    this.delay = options.delay === undefined ? 60 : options.delay;
  }
}

/** Fail the handler for this change-set: no more retries until the object changes again. */
export class PermanentError extends Error {
  constructor(message = '', options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PermanentError';
  }
}

/** The handler ran out of time (its `timeout` option). */
export class HandlerTimeoutError extends PermanentError {
  constructor(message = '') { super(message); this.name = 'HandlerTimeoutError'; }
}

/** The handler ran out of attempts (its `retries` option). */
export class HandlerRetriesError extends PermanentError {
  constructor(message = '') { super(message); this.name = 'HandlerRetriesError'; }
}

/** Internal: a parent handler whose sub-handlers are not all finished yet. */
export class HandlerChildrenRetry extends TemporaryError {
  constructor(delay: number | null) { super('None', { delay }); this.name = 'HandlerChildrenRetry'; }
}

/** What to do with an arbitrary error a handler throws. */
export type ErrorsMode = 'temporary' | 'permanent' | 'ignored';

/**
 * What a thrown value says: an error's message, a string as it is, anything else as inspected
 * (`{ code: 42 }` rather than `[object Object]`): JavaScript lets code throw any value.
 */
export function thrownText(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  return inspected(value);
}

/** A value as Node shows it, on one line: for thrown values that are not Errors. */
export function inspected(value: unknown): string {
  return inspect(value, { depth: 2, breakLength: Infinity });
}
