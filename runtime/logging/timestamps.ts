/**
 * The two timestamp layouts Kopf writes: Python's `asctime` in local time for text logs, and
 * ISO 8601 in UTC with microseconds and `+00:00` for JSON logs and Kubernetes Events.
 * Times are milliseconds since the epoch; a fractional part (from `performance`) gives microseconds.
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2026-11-22 15:39:55,651` in the process's time zone. */
export function asctime(ms: number): string {
  const d = new Date(Math.floor(ms));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `
    + `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())},${pad(d.getMilliseconds(), 3)}`;
}

/**
 * `2026-11-22T15:39:55.652600+00:00`, as Python's `datetime.now(timezone.utc).isoformat()`, except
 * that a zero fraction is kept (`.000000`): Kubernetes parses an Event's `eventTime` only with it.
 */
export function isoUtcMicro(ms: number): string {
  const d = new Date(Math.floor(ms));
  const micros = Math.min(999_999, Math.round((ms - Math.floor(ms / 1000) * 1000) * 1000));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T`
    + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(micros, 6)}+00:00`;
}
