/**
 * What the fault suite reads from the journal of handler runs: whether a run started after its
 * handler's success for the same change had been recorded on the object (a re-run to count), and
 * whether two processes were in one object's handlers at the same time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  isRecorded, overlaps, readJournal, readRuns, rerunsAfterRecording, type JournalEntry, type ObjectMarks, type RunEnd,
} from '../../faults/journal.ts';

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

test('runs end at their end lines, or when their process was gone; two processes in one object at once overlap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-journal-'));
  try {
    const start = (pid: number, uid: string, t: number): JournalEntry => ({ ...run('create_a', null), pid, uid, t });
    const end = (pid: number, uid: string, t: number, ended: number): RunEnd =>
      ({ ended, pid, handler: 'create_a', uid, t });
    const path = join(dir, 'journal.jsonl');
    const lines = [
      start(1, 'u1', 100), start(1, 'u2', 110), end(1, 'u1', 100, 150), // pid 1 dies in u2's run
      start(2, 'u2', 130), start(2, 'u1', 160), end(2, 'u1', 160, 170), // u2 meets pid 1's unfinished run
      start(3, 'u3', 140), // no end, its process still there
    ];
    writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    assert.equal(readJournal(path).length, 5, 'end lines are not runs');
    const runs = readRuns(path, new Map([[1, 200]]));
    assert.deepEqual(runs.map((r) => [r.entry.pid, r.entry.uid, r.end]), [
      [1, 'u1', 150], [1, 'u2', 200], [2, 'u2', Infinity], [2, 'u1', 170], [3, 'u3', Infinity],
    ]);
    assert.deepEqual(overlaps(runs), ['o1: create_a in pid 1 and create_a in pid 2']);
    assert.deepEqual(overlaps(readRuns(path, new Map([[1, 120]]))), [], 'pid 1 gone before pid 2 took u2');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
