import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonTimedelta, Timestamp, TimestampError } from '../../../runtime/progress/timestamps.ts';
import { kopfFixture } from './kopf-fixtures.ts';

interface TimestampsFixture {
  parse: (
    { text: string; iso: string; naive: boolean; epochMicros: string | null } | { text: string; error: string }
  )[];
  timedeltas: { micros: number; text: string }[];
  auto: { iso: string; auto: string }[];
}
const fixture = kopfFixture<TimestampsFixture>('timestamps.json');

const epochMicros = (t: Timestamp) => (BigInt(t.ms) * 1000n + BigInt(t.us)).toString();

test('timestamps parse as Kopf parses them, and format as it formats them', () => {
  for (const c of fixture.parse) {
    if ('error' in c) {
      assert.throws(() => Timestamp.parse(c.text), TimestampError, c.text);
      continue;
    }
    const parsed = Timestamp.parse(c.text);
    assert.equal(parsed.toIso(), c.iso, c.text);
    assert.equal(parsed.offset === null, c.naive, c.text);
    if (c.epochMicros !== null) assert.equal(epochMicros(parsed), c.epochMicros, c.text);
    assert.equal(Timestamp.parse(parsed.toIso()).toIso(), c.iso, `round trip of ${c.text}`);
  }
});

test('microseconds and offsets survive a round trip', () => {
  for (
    const text of ['2026-11-22T03:18:01.949187+00:00', '2026-11-22T03:18:01.000001-05:30', '2026-11-22T03:18:01.123456']
  ) {
    assert.equal(Timestamp.parse(text).toIso(), text);
  }
});

test('the auto timespec drops an all-zero fraction', () => {
  for (const { iso, auto } of fixture.auto) assert.equal(Timestamp.parse(iso).toIso('auto'), auto);
});

test('arithmetic keeps microseconds and the offset', () => {
  const t = Timestamp.parse('2026-11-22T03:18:01.949187+02:00');
  assert.equal(t.plus(12.5).toIso(), '2026-11-22T03:18:14.449187+02:00');
  assert.equal(t.plus(-0.949188).toIso(), '2026-11-22T03:18:00.999999+02:00');
  assert.equal(t.plus(0.000001).microsSince(t), 1);
  assert.equal(Timestamp.parse('2026-11-22T01:18:01.949187Z').compare(t), 0);
  assert.equal(t.plus(1).secondsSince(t), 1);
  assert.equal(new Timestamp(1000.5).toIso(), '1970-01-01T00:00:01.000500+00:00');
  assert.equal(new Timestamp(0, 1500).toIso(), '1970-01-01T00:00:00.001500+00:00');
  assert.equal(Timestamp.fromDate(new Date('2026-01-01T00:00:00.123Z')).toIso(), '2026-01-01T00:00:00.123000+00:00');
  assert.equal(t.toDate().toISOString(), '2026-11-22T01:18:01.949Z');
  assert.equal(JSON.stringify({ t }), '{"t":"2026-11-22T03:18:01.949187+02:00"}');
});

test('now is UTC and close to the system clock', () => {
  const before = Date.now();
  const now = Timestamp.now();
  assert.equal(now.offset, 0);
  assert.ok(Math.abs(now.ms - before) < 1000, `${now.ms} vs ${before}`);
  assert.match(now.toIso(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
});

test('durations print as Python’s timedelta', () => {
  for (const { micros, text } of fixture.timedeltas) assert.equal(pythonTimedelta(micros), text, String(micros));
});
