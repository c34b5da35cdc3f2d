/**
 * What a label's value may be. Values come from the operator's code (resources, handler ids,
 * verbs), but some of them pass through the cluster's content on the way (a sub-handler's id made
 * from an object's field, a namespace served by a glob pattern): none of them may break the
 * exposition, make a label read as something else, or make a scrape grow without bound.
 */

/** The longest label value, in UTF-16 units; a longer one is cut and ends in `…`. */
export const MAX_LABEL_LENGTH = 128;

/** Distinct values of one label under the same values of the labels before it; more go to `OVERFLOW`. */
export const MAX_LABEL_VALUES = 100;

/** Series of one metric; a report of new label values past it goes to the series of `OVERFLOW` only. */
export const MAX_SERIES = 1000;

/** The value that stands for the values past a cap. */
export const OVERFLOW = '_overflow';

/**
 * Controls (C0, DEL, C1), invisible formatting (bidirectional overrides, zero-width characters),
 * line and paragraph separators, lone surrogates: a label shows none of them.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** The value as a label shows it: the unprintable replaced by `�`, cut to `MAX_LABEL_LENGTH`. */
export function labelText(value: string): string {
  const text = value.replace(UNPRINTABLE, '\uFFFD');
  if (text.length <= MAX_LABEL_LENGTH) return text;
  let end = MAX_LABEL_LENGTH - 1;
  // A cut between the two halves of a surrogate pair would leave a lone one.
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}…`;
}
