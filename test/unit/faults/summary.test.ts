/** The fault suite's summary table: a row per test and a total. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUMMARY_ENV, recordRow, summaryTable } from '../../faults/summary.ts';

test('rows recorded into the summary file come out as a table with a total', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-summary-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'summary.jsonl');
  const previous = process.env[SUMMARY_ENV];
  process.env[SUMMARY_ENV] = path;
  t.after(() => {
    if (previous === undefined) delete process.env[SUMMARY_ENV];
    else process.env[SUMMARY_ENV] = previous;
  });
  recordRow({ test: 'kills', faults: 16, objects: 12, lost: 1, reruns: 0, seconds: 40.4, seed: 7 });
  recordRow({ test: 'watch stream cut', faults: 8, objects: 5, lost: 0, reruns: 2, seconds: 13 });
  assert.deepEqual(summaryTable(path).split('\n'), [
    'test              faults  objects  lost  re-runs   s  seed',
    '----------------  ------  -------  ----  -------  --  ----',
    'kills                 16       12     1        0  40     7',
    'watch stream cut       8        5     0        2  13      ',
    '----------------  ------  -------  ----  -------  --  ----',
    'total                 24       17     1        2  53      ',
  ]);
});
