/**
 * Timestamps of progress records, as Kopf writes and reads them.
 *
 * Kopf writes `datetime.isoformat(timespec='microseconds')`: always six fraction digits, and the
 * offset the value carries (`+00:00` for its own values; none for naive values that older Kopf
 * versions wrote). It reads with the `iso8601` library: `Z`, `±HH:MM`, `±HHMM`, `±HH`, naive,
 * basic (`20261122T031801Z`) and partial forms, any number of fraction digits (cut to six).
 *
 * A `Timestamp` keeps the microseconds and the written offset, so a record read from Kopf and
 * stored back is unchanged. Naive values are taken as UTC for arithmetic (Kopf 1.44 itself fails
 * when it compares them with its aware "now").
 */
import { isoSecond, pad } from '../structs/seconds.ts';
import { currentClock } from '../structs/clock.ts';

const MS_PER_MINUTE = 60_000;

export class TimestampError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampError';
  }
}

export class Timestamp {
  /** Milliseconds since the epoch (for naive values: as if they were UTC). */
  readonly ms: number;
  /** Microseconds beyond `ms`: 0–999. */
  readonly us: number;
  /** The offset written with the value, in minutes east of UTC; `null` for a naive value. */
  readonly offset: number | null;

  constructor(ms: number, us = 0, offset: number | null = 0) {
    const whole = Math.floor(ms);
    const micros = Math.round((ms - whole) * 1000) + us;
    this.ms = whole + Math.floor(micros / 1000);
    this.us = micros - Math.floor(micros / 1000) * 1000;
    this.offset = offset;
  }

  /**
   * The current time in UTC, of the handlers' clock (`structs/clock.ts`). Milliseconds come from
   * the wall clock (the monotonic clock drifts from it over days); the digits below them from the
   * high-resolution clock.
   */
  static now(): Timestamp {
    return new Timestamp(currentClock().now(), Math.floor((performance.now() % 1) * 1000));
  }

  static fromDate(date: Date, offset: number | null = 0): Timestamp {
    return new Timestamp(date.getTime(), 0, offset);
  }

  /** Parses what Kopf (its `iso8601` library, without a default time zone) accepts. */
  static parse(text: string): Timestamp {
    return parseIso8601(text);
  }

  toDate(): Date {
    return new Date(this.ms);
  }

  /** Microseconds from `other` to this timestamp (positive if this one is later). */
  microsSince(other: Timestamp): number {
    return (this.ms - other.ms) * 1000 + (this.us - other.us);
  }

  secondsSince(other: Timestamp): number {
    return this.microsSince(other) / 1e6;
  }

  /** This moment plus (or minus) some seconds, rounded to microseconds; the offset is kept. */
  plus(seconds: number): Timestamp {
    const micros = Math.round(seconds * 1e6);
    const ms = Math.floor(micros / 1000);
    return new Timestamp(this.ms + ms, this.us + (micros - ms * 1000), this.offset);
  }

  compare(other: Timestamp): number {
    return Math.sign(this.microsSince(other));
  }

  /**
   * ISO 8601 as Python's `isoformat()`: with `'microseconds'`, always six fraction digits (what
   * Kopf stores in records); with `'auto'`, none when they are all zero (Kopf's touch values).
   */
  toIso(timespec: 'microseconds' | 'auto' = 'microseconds'): string {
    // The wall clock of the written offset, formatted as if it were UTC.
    const wall = Math.floor(this.ms + (this.offset ?? 0) * MS_PER_MINUTE);
    const second = Math.floor(wall / 1000);
    const micros = (wall - second * 1000) * 1000 + this.us;
    const fraction = timespec === 'auto' && micros === 0 ? '' : `.${pad(micros, 6)}`;
    return `${isoSecond(second)}${fraction}${this.offset === null ? '' : formatOffset(this.offset)}`;
  }

  toString(): string {
    return this.toIso();
  }

  toJSON(): string {
    return this.toIso();
  }
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// The `iso8601` library's grammar. Python's `$` also matches before a final newline.
const ISO8601 = new RegExp(
  '^(?<year>[0-9]{4})('
  + '(-(?<monthdash>[0-9]{1,2})|(?<month>[0-9]{2})(?!\\n?$))'
  + '((-(?<daydash>[0-9]{1,2})|(?<day>[0-9]{2}))'
  + '(([ T])(?<hour>[0-9]{2})(:?(?<minute>[0-9]{2}))?'
  + '(:?(?<second>[0-9]{1,2})([.,](?<fraction>[0-9]+))?)?'
  + '(?<timezone>Z|((?<tzsign>[-+])(?<tzhour>[0-9]{2}):?(?<tzminute>[0-9]{2})?))?'
  + ')?)?)?\\n?$',
);

function parseIso8601(text: string): Timestamp {
  const groups = ISO8601.exec(text)?.groups;
  if (!groups) throw new TimestampError(`Unable to parse date string ${JSON.stringify(text)}`);
  const number = (...names: string[]): number | undefined => {
    for (const name of names) if (groups[name] !== undefined) return Number(groups[name]);
    return undefined;
  };
  const year = number('year') ?? 0;
  const month = number('month', 'monthdash') ?? 1;
  const day = number('day', 'daydash') ?? 1;
  const hour = number('hour') ?? 0;
  const minute = number('minute') ?? 0;
  const second = number('second') ?? 0;
  const micros = Number((groups.fraction ?? '').slice(0, 6).padEnd(6, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const valid = year >= 1 && month >= 1 && month <= 12 && date.getUTCDate() === day && date.getUTCMonth() === month - 1
    && hour <= 23 && minute <= 59 && second <= 59;
  if (!valid) throw new TimestampError(`Invalid date or time in ${JSON.stringify(text)}`);
  const offset = parseOffset(groups);
  if (offset !== null && Math.abs(offset) >= 24 * 60)
    throw new TimestampError(`Invalid offset in ${JSON.stringify(text)}`);
  return new Timestamp(
    date.getTime() - (offset ?? 0) * MS_PER_MINUTE + Math.floor(micros / 1000),
    micros % 1000,
    offset,
  );
}

function parseOffset(groups: Record<string, string | undefined>): number | null {
  if (groups.timezone === undefined) return null;
  if (groups.timezone === 'Z') return 0;
  const minutes = Number(groups.tzhour) * 60 + Number(groups.tzminute ?? 0);
  return groups.tzsign === '-' ? -minutes : minutes;
}

/** A duration as Python's `str(timedelta)`: `0:00:05.000123`, `1 day, 2:03:04`, `-1 day, 23:59:59`. */
export function pythonTimedelta(micros: number): string {
  const whole = Math.round(micros);
  const days = Math.floor(whole / 86_400_000_000);
  const rest = whole - days * 86_400_000_000;
  const seconds = Math.floor(rest / 1e6);
  const fraction = rest - seconds * 1e6;
  let text = `${Math.floor(seconds / 3600)}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
  if (fraction) text += `.${pad(fraction, 6)}`;
  if (days) text = `${days} day${Math.abs(days) === 1 ? '' : 's'}, ${text}`;
  return text;
}
