/** Reading a process's CPU time from /proc for the burst benchmark. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuTimesOf } from '../../../bench/burst/procstat.ts';

test('user and system time are fields 14 and 15, counted after the command name whatever it holds', () => {
  // A command name with spaces and parentheses of its own; utime 250 and stime 40 ticks.
  const stat =
    '4242 (node (kopf) run) S 1 4242 4242 0 -1 4194304 9000 0 0 0 250 40 0 0 20 0 11 0 123 1000 200 ' +
      '18446744073709551615\n';
  assert.deepEqual(cpuTimesOf(stat, 100), { user: 2.5, system: 0.4 });
  assert.deepEqual(cpuTimesOf(stat, 1000), { user: 0.25, system: 0.04 });
});
