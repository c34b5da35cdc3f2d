/** Reading `perf stat -x ,` output for the burst benchmark's instruction counts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePerfStat } from '../../../bench/burst/counters.ts';

test('both counters are read from perf\'s comma-separated lines', () => {
  const report = '1064101,,instructions,10909125,100.00,0.56,insn per cycle\n1884797,,cycles,10909125,100.00,,\n';
  assert.deepEqual(parsePerfStat(report), { instructions: 1064101, cycles: 1884797 });
});

test('events with modifiers (instructions:u) count as the event', () => {
  assert.deepEqual(
    parsePerfStat('10,,instructions:u,1,100.00,,\n20,,cycles:u,1,100.00,,\n'),
    { instructions: 10, cycles: 20 },
  );
});

test('a counter the machine does not have gives no reading, not a zero', () => {
  assert.equal(parsePerfStat('<not supported>,,instructions,0,100.00,,\n1884797,,cycles,10909125,100.00,,\n'), null);
  assert.equal(parsePerfStat('Error: no access\n'), null);
});
