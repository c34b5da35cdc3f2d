/**
 * What the fault suite reads from the journal of handler runs: whether a run started after its
 * handler's success for the same change had been recorded on the object (a re-run to count).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isRecorded, rerunsAfterRecording, type JournalEntry, type ObjectMarks } from '../../faults/journal.ts';

const SUCCESS = '{"started":"2026-01-01T00:00:00+00:00","retries":1,"success":true,"failure":false}';
const PENDING = '{"started":"2026-01-01T00:00:00+00:00","retries":0,"success":false,"failure":false}';
const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';

function run(handler: JournalEntry['handler'], seen: ObjectMarks | null, step = 1): JournalEntry {
  return { t: 0, pid: 1, handler, uid: 'u1', name: 'o1', step, retry: 0, seen };
}

const marks = (annotations: Record<string, string>, kopf: unknown = null): ObjectMarks => ({ annotations, kopf });

test('a run is recorded when its progress record says success, in annotations or in the legacy status', () => {
  assert.equal(isRecorded(run('create_a', marks({ 'kopf.zalando.org/create_a': SUCCESS }))), true);
  assert.equal(isRecorded(run('create_a', marks({}, { progress: { create_a: { success: true } } }))), true);
  assert.equal(isRecorded(run('create_a', marks({ 'kopf.zalando.org/create_a': PENDING }))), false);
  const another = marks({ 'kopf.zalando.org/create_a': SUCCESS });
  assert.equal(isRecorded(run('create_b', another)), false, "another handler's success");
  assert.equal(isRecorded(run('delete_fn', marks({ 'kopf.zalando.org/delete_fn': SUCCESS }))), true);
});

test('creation handlers are recorded by any diff-base; the update handler by one of its step', () => {
  const handled = (step: number) => marks({ [DIFF_BASE]: `{"spec":{"step":${step}}}\n` });
  assert.equal(isRecorded(run('create_a', handled(1))), true);
  assert.equal(isRecorded(run('create_b', handled(2))), true);
  assert.equal(isRecorded(run('update_fn', handled(2), 2)), true);
  assert.equal(isRecorded(run('update_fn', handled(1), 2)), false, 'a new step is a new change');
  assert.equal(isRecorded(run('delete_fn', handled(2), 2)), false, 'deletion is not in the diff-base');
  assert.equal(isRecorded(run('create_a', marks({}))), false);
});

test('a run whose object could not be read is unknown, and not counted as a re-run', () => {
  assert.equal(isRecorded(run('create_a', null)), null);
  const recorded = marks({ 'kopf.zalando.org/create_a': SUCCESS });
  const entries = [run('create_a', null), run('create_a', recorded), run('create_b', marks({}))];
  assert.deepEqual(rerunsAfterRecording(entries), [entries[1]]);
});
