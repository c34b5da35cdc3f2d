import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asctime, isoUtcMicro } from '../../../runtime/logging/time-layouts.ts';
import { Timestamp } from '../../../runtime/progress/timestamps.ts';
import { perSecond } from '../../../runtime/structs/seconds.ts';

test('a per-second formatter formats each new second once and answers a repeated one from memory', () => {
  const calls: number[] = [];
  const format = perSecond((s) => { calls.push(s); return `s${s}`; });
  assert.deepEqual([format(5), format(5), format(6), format(5)], ['s5', 's5', 's6', 's5']);
  assert.deepEqual(calls, [5, 6, 5]);
});

test('timestamps stay right across second boundaries, forwards and backwards, in every layout', () => {
  // Each moment is formatted the way the code did before it remembered seconds: a Date per call.
  const moments = [
    1_795_000_000_999.5,
    1_795_000_001_000,
    1_795_000_000_999,
    1_795_000_059_999.25,
    1_795_000_060_000,
    0,
  ];
  for (const ms of moments) {
    const d = new Date(Math.floor(ms));
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    const local =
      `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
        `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
    assert.equal(asctime(ms), local);
    const utc = d.toISOString().slice(0, 19);
    const micros = Math.round((ms - Math.floor(ms / 1000) * 1000) * 1000);
    assert.equal(isoUtcMicro(ms), `${utc}.${p(micros, 6)}+00:00`);
    assert.equal(new Timestamp(Math.floor(ms), 7).toIso(), `${utc}.${p(d.getUTCMilliseconds() * 1000 + 7, 6)}+00:00`);
    const east = new Date(Math.floor(ms) + 90 * 60_000).toISOString().slice(0, 19);
    assert.equal(
      new Timestamp(Math.floor(ms), 0, 90).toIso('auto'),
      `${east}${d.getUTCMilliseconds() ? `.${p(d.getUTCMilliseconds() * 1000, 6)}` : ''}+01:30`,
    );
  }
});
