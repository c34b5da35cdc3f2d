import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));

interface Report {
  pid: number;
  execArgv: string[];
  /** Node's compile cache folder, if the cache is on. */
  cache?: string;
  /** Whether Node's TypeScript stripper was loaded. */
  stripper: boolean;
}

/** A TypeScript file that reports how its process was started, then exits; one for all runs (Node caches by file). */
const REPORT = join(mkdtempSync(join(tmpdir(), 'kopf-heap-')), 'report.ts');
writeFileSync(REPORT, [
  "import module from 'node:module';",
  'const stripper: boolean = process.moduleLoadList.some((name) => name.includes(\'amaro\'));',
  'console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, cache: module.getCompileCacheDir(), ' +
    'stripper }));',
  'process.exit(0);',
].join('\n'));

/** The user's cache folder of these runs, so that they leave nothing in the real one. */
const CACHE_HOME = mkdtempSync(join(tmpdir(), 'kopf-heap-cache-'));
after(() => rmSync(CACHE_HOME, { recursive: true, force: true }));

/** Runs `kopf run` on the report file. */
function reportFromRun(env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): {
  pid: number;
  reported: Report
} {
  const run = spawnSync(process.execPath, [...process.execArgv, ...nodeArgs, CLI, 'run', REPORT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: undefined,
      NODE_COMPILE_CACHE: undefined,
      NODE_DISABLE_COMPILE_CACHE: undefined,
      XDG_CACHE_HOME: CACHE_HOME,
      ...env
    },
  });
  assert.equal(run.status, 0, run.stderr);
  return { pid: run.pid!, reported: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Report };
}

const TUNED = /^--(no-)?(max-semi-space-size|single-threaded(-gc)?|invocation-count-for-turbofan)(=|$)/;

/** The flags of a run that `kopf run` tunes, in their order. */
function tuned(reported: Report): string[] {
  return reported.execArgv.filter((option) => TUNED.test(option));
}

test('kopf run caps the young generation and collects and compiles on the main thread: the same process goes on ' +
  'with the flags', () => {
  const { pid, reported } = reportFromRun();
  assert.equal(reported.pid, pid, 'the process replaced itself rather than starting a child');
  assert.deepEqual(
    tuned(reported),
    ['--max-semi-space-size=8', '--single-threaded', '--invocation-count-for-turbofan=100000'],
  );
});

test('kopf run keeps a young-generation size, a collector and a compiler threshold its user chose', () => {
  assert.deepEqual(
    tuned(reportFromRun({}, ['--invocation-count-for-turbofan=500']).reported),
    ['--max-semi-space-size=8', '--single-threaded', '--invocation-count-for-turbofan=500'],
  );
  assert.deepEqual(
    tuned(reportFromRun({ NODE_OPTIONS: '--max-semi-space-size=32' }).reported),
    ['--single-threaded', '--invocation-count-for-turbofan=100000'],
  );
  assert.deepEqual(
    tuned(reportFromRun({}, ['--no-single-threaded-gc']).reported),
    ['--max-semi-space-size=8', '--invocation-count-for-turbofan=100000', '--no-single-threaded-gc'],
  );
  assert.deepEqual(
    tuned(reportFromRun({}, ['--max-semi-space-size=32', '--single-threaded-gc']).reported),
    ['--invocation-count-for-turbofan=100000', '--max-semi-space-size=32', '--single-threaded-gc'],
  );
  assert.deepEqual(
    tuned(reportFromRun({}, ['--no-single-threaded']).reported),
    ['--max-semi-space-size=8', '--invocation-count-for-turbofan=100000', '--no-single-threaded'],
  );
});

test('kopf run starts with Node\'s compile cache: a warm start does not load the TypeScript stripper (Node 24)', () => {
  const cache = mkdtempSync(join(tmpdir(), 'kopf-cache-'));
  const cold = reportFromRun({ NODE_COMPILE_CACHE: cache }).reported;
  const warm = reportFromRun({ NODE_COMPILE_CACHE: cache }).reported;
  assert.ok(cold.cache?.startsWith(cache), `the cache is in ${cache}: ${cold.cache}`);
  assert.equal(cold.stripper, true, 'a cold start strips the types itself');
  // Node caches the stripped sources since 23.x; Node 22 caches compiled code only.
  const cachesStripping = Number(process.versions.node.split('.')[0]) >= 24;
  assert.equal(warm.stripper, !cachesStripping);
  assert.ok(
    reportFromRun().reported.cache?.startsWith(join(CACHE_HOME, 'kopf', 'node-compile-cache')),
    'by default, in the user\'s cache folder',
  );
  assert.equal(
    reportFromRun({ NODE_DISABLE_COMPILE_CACHE: '1' }).reported.cache,
    undefined,
    'NODE_DISABLE_COMPILE_CACHE turns it off',
  );
});

/**
 * A file that calls a small function `calls` times and reports whether V8 has compiled it with
 * TurboFan (bit 6 of `%GetOptimizationStatus`, readable with `--allow-natives-syntax`).
 */
function turbofannedAfter(calls: number, nodeArgs: string[] = []): boolean {
  const file = join(mkdtempSync(join(tmpdir(), 'kopf-tiers-')), 'tiers.mjs');
  writeFileSync(file, [
    'const status = new Function("f", "return %GetOptimizationStatus(f)");',
    'const neverOptimize = new Function("f", "%NeverOptimizeFunction(f)");',
    'function add(a, b) { return a + b; }',
    // The loop stays interpreted, so that `add` is called, not inlined into the loop's optimized code.
    `function drive() { let sum = 0; for (let i = 0; i < ${calls}; i++) sum = add(sum, i); return sum; }`,
    'neverOptimize(drive);',
    'const sum = drive();',
    'console.log(JSON.stringify({ turbofanned: Boolean(status(add) & 64), sum }));',
    'process.exit(0);',
  ].join('\n'));
  const argv = [...process.execArgv, '--allow-natives-syntax', ...nodeArgs, CLI, 'run', file];
  const run = spawnSync(process.execPath, argv, {
    encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: undefined, XDG_CACHE_HOME: CACHE_HOME },
  });
  rmSync(dirname(file), { recursive: true, force: true });
  assert.equal(run.status, 0, run.stderr);
  return (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { turbofanned: boolean }).turbofanned;
}

test('kopf run leaves code to TurboFan only when it is hot: not a function called 22,000 times, as a start ' +
  'calls some', () => {
  const probe = turbofannedAfter(22_000, ['--invocation-count-for-turbofan=3000']);
  assert.equal(probe, true, 'the probe sees TurboFan\'s code');
  assert.equal(turbofannedAfter(22_000), false);
  assert.equal(turbofannedAfter(1_000_000), true, 'a hot function still reaches it');
});
