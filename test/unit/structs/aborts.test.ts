/** Awaiting a signal's abort. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aborted } from '../../../runtime/structs/aborts.ts';

test('resolves when the signal aborts, and at once for one aborted already', async () => {
  const controller = new AbortController();
  let resolved = false;
  const waiting = aborted(controller.signal).then(() => { resolved = true; });
  await Promise.resolve();
  assert.equal(resolved, false);
  controller.abort();
  await waiting;
  assert.equal(resolved, true);
  await aborted(AbortSignal.abort());
});
