/**
 * Formatting of whole seconds that remembers its last answer. Log lines and progress records come
 * many to a second in a burst, and their timestamps share the date and the time up to the second:
 * that part is formatted once a second (a Date and a dozen small strings) instead of once a call.
 */
export function perSecond(format: (second: number) => string): (second: number) => string {
  let last = NaN;
  let text = '';
  return (second) => {
    if (second !== last) {
      text = format(second);
      last = second;
    }
    return text;
  };
}

/** Zero-padded decimal digits, as Python's `%02d`-style fields. */
export function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * `2026-11-22T03:18:01` (with `separator` between the date and the time) for a second of a wall
 * clock, given as seconds since the epoch of that clock: UTC's, or a time zone's shifted by its offset.
 */
export function wallSeconds(separator: string): (second: number) => string {
  return perSecond((second) => {
    const d = new Date(second * 1000);
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
      + `${separator}${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  });
}

/** ISO 8601's date and time to the second. */
export const isoSecond = wallSeconds('T');
