import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));

/** Runs `kopf run` on a file that reports how its process was started, then exits. */
function reportFromRun(env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): { pid: number; reported: { pid: number; execArgv: string[] } } {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-heap-'));
  const file = join(dir, 'report.mjs');
  writeFileSync(file, 'console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv })); process.exit(0);\n');
  const run = spawnSync(process.execPath, [...process.execArgv, ...nodeArgs, CLI, 'run', file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: undefined, ...env } });
  assert.equal(run.status, 0, run.stderr);
  return { pid: run.pid!, reported: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { pid: number; execArgv: string[] } };
}

const TUNED = /^--(no-)?(max-semi-space-size|single-threaded-gc)/;

test('kopf run caps the young generation and collects on the main thread: the same process goes on with the flags', () => {
  const { pid, reported } = reportFromRun();
  assert.equal(reported.pid, pid, 'the process replaced itself rather than starting a child');
  assert.deepEqual(reported.execArgv.filter((option) => TUNED.test(option)), ['--max-semi-space-size=16', '--single-threaded-gc']);
});

test('kopf run keeps a young-generation size and a collector its user chose', () => {
  assert.deepEqual(reportFromRun({ NODE_OPTIONS: '--max-semi-space-size=8' }).reported.execArgv.filter((option) => TUNED.test(option)), ['--single-threaded-gc']);
  assert.deepEqual(reportFromRun({}, ['--no-single-threaded-gc']).reported.execArgv.filter((option) => TUNED.test(option)), ['--max-semi-space-size=16', '--no-single-threaded-gc']);
  assert.deepEqual(reportFromRun({}, ['--max-semi-space-size=8', '--single-threaded-gc']).reported.execArgv.filter((option) => TUNED.test(option)), ['--max-semi-space-size=8', '--single-threaded-gc']);
});
