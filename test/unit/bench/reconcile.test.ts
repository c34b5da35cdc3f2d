/** The reconcile benchmark's reading of the operators' counts, its report, and its build key. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reconcileCountOf } from '../../../bench/reconcile/counting.ts';
import { buildControllerRuntime, sourcesKey } from '../../../bench/reconcile/gobuild.ts';
import { ratios, ratiosLine, table, type Measurement } from '../../../bench/reconcile/report.ts';

test('a count is read from the line both operators print, and from no other line', () => {
  assert.equal(reconcileCountOf('Reconciles: 0.'), 0);
  assert.equal(reconcileCountOf('Reconciles: 600.\r'), 600);
  assert.equal(reconcileCountOf('[2026-11-26 20:00:00,000] kopf  [INFO] Reconciles: 5.'), null);
  assert.equal(reconcileCountOf('Reconciles: many.'), null);
});

function run(contestant: string, figures: Partial<Measurement>): Measurement {
  return {
    contestant, run: 1, n: 300, madeSeconds: 1, backSeconds: 1, reconciles: 600, cpuMsPerReconcile: 1,
    cpuMsPerChild: 2, idleRssMiB: 20, peakRssMiB: 40, exitCode: 0, ...figures,
  };
}

test('the ratios are the contestant\'s averages over the baseline\'s, across runs', () => {
  const results = [
    run('built', { backSeconds: 1, cpuMsPerChild: 1, peakRssMiB: 60, idleRssMiB: 50 }),
    run('built', { backSeconds: 3, cpuMsPerChild: 3, peakRssMiB: 60, idleRssMiB: 50 }),
    run('controller-runtime', { backSeconds: 4, cpuMsPerChild: 4, peakRssMiB: 30, idleRssMiB: 10 }),
  ];
  assert.deepEqual(
    ratios(results, 'built', 'controller-runtime'),
    { back: 0.5, cpuPerReconcile: 1, cpuPerChild: 0.5, peakRss: 2, growth: 0.5 },
  );
  assert.match(ratiosLine(results, 'built', 'controller-runtime') ?? '', /all back 0\.50×.*CPU per child 0\.50×/);
});

test('without the baseline (it could not be built), there are no ratios, and the table still has the runs', () => {
  const results = [run('built', {})];
  assert.equal(ratios(results, 'built', 'controller-runtime'), null);
  const lines = table(results, new Map([['built', 'this runtime, built']])).split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[2]!, /^\| this runtime, built \| 1 \| 300 \| 1\.00 \|/);
});

test('the build key follows every source of the Go program', () => {
  const sources: Record<string, string> = { 'go.mod': 'module m', 'go.sum': 'sums', 'main.go': 'package main' };
  const key = sourcesKey((file) => sources[file]!);
  for (const file of Object.keys(sources)) {
    const changed = sourcesKey((name) => name === file ? `${sources[name]} ` : sources[name]!);
    assert.notEqual(changed, key, `a change of ${file} keeps the key`);
  }
  assert.equal(sourcesKey((file) => sources[file]!), key);
});

test('without Go, controller-runtime is skipped with the reason, and nothing is left in the cache', async (t) => {
  const cache = mkdtempSync(join(tmpdir(), 'kopf-bench-cache-'));
  t.after(() => rmSync(cache, { recursive: true, force: true }));
  const built = await buildControllerRuntime({ ...process.env, XDG_CACHE_HOME: cache, PATH: cache });
  assert.deepEqual(built, { skipped: 'Go is not installed (no `go` on PATH)' });
  const [dir] = readdirSync(join(cache, 'kopf', 'bench'));
  assert.deepEqual(readdirSync(join(cache, 'kopf', 'bench', dir!)), [], 'a lock or a half-built binary was left');
  assert.ok(!existsSync(join(cache, 'kopf', 'bench', dir!, 'operator')));
});
