import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));

/** Runs `kopf run` on a file that reports how its process was started, then exits. */
function reportFromRun(env: Record<string, string | undefined> = {}): { pid: number; reported: { pid: number; execArgv: string[] } } {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-heap-'));
  const file = join(dir, 'report.mjs');
  writeFileSync(file, 'console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv })); process.exit(0);\n');
  const run = spawnSync(process.execPath, [...process.execArgv, CLI, 'run', file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: undefined, ...env } });
  assert.equal(run.status, 0, run.stderr);
  return { pid: run.pid!, reported: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { pid: number; execArgv: string[] } };
}

test('kopf run caps the young generation: the same process goes on with the flag', () => {
  const { pid, reported } = reportFromRun();
  assert.equal(reported.pid, pid, 'the process replaced itself rather than starting a child');
  assert.equal(reported.execArgv.filter((option) => option.startsWith('--max-semi-space-size')).join(), '--max-semi-space-size=16');
});

test('kopf run keeps a young-generation size its user chose', () => {
  const { reported } = reportFromRun({ NODE_OPTIONS: '--max-semi-space-size=8' });
  assert.deepEqual(reported.execArgv.filter((option) => option.startsWith('--max-semi-space-size')), []);
});
