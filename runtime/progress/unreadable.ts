/**
 * A stored value that cannot be read, and the one way to parse one: the progress records and the
 * diff-base both come from annotations or fields that anyone may have written.
 */
/**
 * What a storage found on the object cannot be read: not JSON, or not of the shape it writes. The
 * annotation or the field was written by someone else (a person, a tool, an operator gone wrong):
 * nothing in it can be trusted, and guessing could run a handler again or skip one, so the object
 * is left as it is until the value is fixed or removed. The message names the annotation or field
 * and what removing it would do; never the value.
 */
export class UnreadableStateError extends Error {
  /** The annotation (`kopf.zalando.org/create_fn`) or the field (`status.kopf.progress.create_fn`). */
  readonly where: string;
  constructor(where: string, problem: string, remedy: string) {
    super(`The ${where} ${problem}. ${remedy}`);
    this.name = 'UnreadableStateError';
    this.where = where;
  }
}

/** The JSON of a stored value, or an `UnreadableStateError` naming where it is. */
export function parseStored(text: string, where: string, remedy: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UnreadableStateError(where, 'is not valid JSON', remedy); // the parser's message quotes the text
  }
}

/** What removing a handler's progress record does: the handler starts afresh. */
export const PROGRESS_REMEDY = 'Fix or remove it to let the handling go on (removed, the handler starts afresh).';

/** What removing the diff-base does: the object looks new. */
export const DIFFBASE_REMEDY =
  'Fix or remove it to let the handling go on (removed, the object looks new and its creation handlers run).';
