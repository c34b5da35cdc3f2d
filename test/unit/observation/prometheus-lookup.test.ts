/**
 * Where the end-to-end tests find Prometheus: on PATH first, then in kopf's cache; with neither,
 * and nothing to install it with, a reason to skip with, never a throw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPrometheus, prometheusCacheDir } from '../../e2e/observation/prometheus.ts';

function executables(dir: string, names: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
}

test('PATH first, then the cache, else why not', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'kopf-prometheus-lookup-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  const cache = join(root, 'cache');
  const env = { PATH: bin, XDG_CACHE_HOME: cache };

  const missing = await findPrometheus(env);
  assert.equal(typeof missing, 'string');
  assert.match(missing as string, /not on PATH nor in .*\/cache\/kopf\/prometheus, and apt-get is missing/);

  executables(join(prometheusCacheDir(env), 'usr', 'bin'), ['prometheus', 'promtool']);
  assert.deepEqual(await findPrometheus(env), {
    prometheus: join(cache, 'kopf', 'prometheus', 'usr', 'bin', 'prometheus'),
    promtool: join(cache, 'kopf', 'prometheus', 'usr', 'bin', 'promtool'),
    source: 'cache',
  });

  executables(bin, ['prometheus', 'promtool']);
  assert.deepEqual(
    await findPrometheus(env),
    { prometheus: join(bin, 'prometheus'), promtool: join(bin, 'promtool'), source: 'PATH' },
  );
});
