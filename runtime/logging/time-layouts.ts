/**
 * The two timestamp layouts Kopf writes: Python's `asctime` in local time for text logs, and
 * ISO 8601 in UTC with microseconds and `+00:00` for JSON logs and Kubernetes Events.
 * Times are milliseconds since the epoch; a fractional part (from `performance`) gives microseconds.
 */
import { isoSecond, pad, wallSeconds } from '../structs/seconds.ts';

const localSecond = wallSeconds(' ');

/** `2026-11-22 15:39:55,651` in the process's time zone. */
export function asctime(ms: number): string {
  const whole = Math.floor(ms);
  // The local wall clock, as milliseconds; keyed by it, a change of TZ is a new second.
  const wall = whole - new Date(whole).getTimezoneOffset() * 60_000;
  const second = Math.floor(wall / 1000);
  return `${localSecond(second)},${pad(wall - second * 1000, 3)}`;
}

/**
 * `2026-11-22T15:39:55.652600+00:00`, as Python's `datetime.now(timezone.utc).isoformat()`, except
 * that a zero fraction is kept (`.000000`): Kubernetes parses an Event's `eventTime` only with it.
 */
export function isoUtcMicro(ms: number): string {
  const second = Math.floor(ms / 1000);
  const micros = Math.min(999_999, Math.round((ms - second * 1000) * 1000));
  return `${isoSecond(second)}.${pad(micros, 6)}+00:00`;
}
