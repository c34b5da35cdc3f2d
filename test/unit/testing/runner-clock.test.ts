/**
 * `runOperator({ clock })`: the process runs on a virtual clock of its own, started at the test's
 * clock's time and advanced with it through the IPC channel; it is ready to stop afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { VirtualClock } from '../../../runtime/testing/virtual-clock.ts';

const START = Date.UTC(2030, 0, 1);

test('an operator process runs on the test\'s virtual clock, advanced with it', async (t) => {
  const clock = new VirtualClock(START);
  const fixture = join(import.meta.dirname, 'fixtures', 'clocked-process.ts');
  const child = runOperator({ command: [process.execPath, fixture], clock });
  t.after(() => child.stop());
  await child.waitFor(`start ${START}`);
  await clock.advance(59);
  assert.ok(!child.lines.some((line) => line.startsWith('fired')), child.output);
  await clock.advance(1);
  await child.waitFor(`fired ${START + 60_000}`);
  await clock.advance(120);
  await child.waitFor(`fired ${START + 180_000}`);
  assert.deepEqual(child.lines.filter((line) => line.startsWith('fired')),
    [60, 120, 180].map((s) => `fired ${START + s * 1000}`));
});
