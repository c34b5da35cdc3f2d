/**
 * Node's compile cache holds the code that stands for a source file, so whoever can write into
 * its folder decides what runs: `kopf run` keeps it in a folder of the user's own, created 0700,
 * and goes without it rather than use one that others own or may write into.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileCache, unsafe } from '../../../runtime/cli/compile-cache.ts';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-compile-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A folder that anyone may write into, as another user could have left it. */
function worldWritable(path: string): string {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o777);
  return path;
}

test('the cache folder is created under the user\'s cache folder, readable by the user alone', (t) => {
  const home = tempDir(t);
  const cache = compileCache({ XDG_CACHE_HOME: home });
  assert.deepEqual(cache, { folder: join(home, 'kopf', 'node-compile-cache') });
  assert.equal(statSync(join(home, 'kopf', 'node-compile-cache')).mode & 0o777, 0o700);
});

test('a folder that others may write into, that another user owns, or that is a link is refused', (t) => {
  const dir = tempDir(t);
  assert.match(unsafe(worldWritable(join(dir, 'open')))!, /^is writable by others \(mode 777\)$/);
  mkdirSync(join(dir, 'theirs'), { mode: 0o700 });
  const other = (process.getuid?.() ?? 0) + 1;
  assert.match(unsafe(join(dir, 'theirs'), other)!, /^is owned by another user \(uid \d+\)$/);
  symlinkSync(join(dir, 'theirs'), join(dir, 'link'));
  assert.equal(unsafe(join(dir, 'link')), 'is not a directory');
  writeFileSync(join(dir, 'file'), '');
  assert.match(unsafe(join(dir, 'file', 'sub'))!, /^cannot be used \(ENOTDIR\)$/);
  assert.equal(unsafe(join(dir, 'theirs')), undefined, 'the own folder, 0700, is fine');
});

test('a refused folder under the cache home gives way to the one in the temporary folder', (t) => {
  const home = tempDir(t);
  worldWritable(join(home, 'kopf', 'node-compile-cache'));
  const cache = compileCache({ XDG_CACHE_HOME: home });
  assert.deepEqual(cache, { folder: join(tmpdir(), `kopf-node-compile-cache-${process.getuid?.() ?? 'user'}`) });
});

/** `kopf run` on a file that reports its compile cache folder; the cache and temporary folders are the test's. */
function runReport(home: string, temp: string): { cache?: string; stderr: string } {
  const report = join(home, 'report.ts');
  writeFileSync(
    report,
    "import module from 'node:module';\nconsole.log(JSON.stringify({ cache: module.getCompileCacheDir() " +
      "}));\nprocess.exit(0);\n",
  );
  const run = spawnSync(process.execPath, [...process.execArgv, CLI, 'run', '--standalone', report], {
    encoding: 'utf8',
    env: {
      ...process.env, NODE_OPTIONS: undefined, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined,
      XDG_CACHE_HOME: home, TMPDIR: temp,
    },
  });
  assert.equal(run.status, 0, run.stderr);
  return { ...(JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { cache?: string }), stderr: run.stderr };
}

test('kopf run keeps the cache in the user\'s folder, and runs without it when no folder is safe, saying why', (t) => {
  const home = tempDir(t);
  const temp = tempDir(t);
  assert.ok(runReport(home, temp).cache?.startsWith(join(home, 'kopf', 'node-compile-cache')));

  const shared = tempDir(t);
  worldWritable(join(shared, 'kopf', 'node-compile-cache'));
  const sharedTemp = worldWritable(join(shared, 'tmp'));
  worldWritable(join(sharedTemp, `kopf-node-compile-cache-${process.getuid?.() ?? 'user'}`));
  const refused = runReport(shared, sharedTemp);
  assert.equal(refused.cache, undefined);
  assert.match(
    refused.stderr,
    /Running without Node's compile cache: \S+ is writable by others \(mode 777\); \S+ is writable by others/,
  );
});
