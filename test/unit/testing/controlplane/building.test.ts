import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBinaries } from '../../../../runtime/testing/controlplane/binaries.ts';
import { BuildError, buildBinaries } from '../../../../runtime/testing/controlplane/building.ts';
import { binaryCacheDir, buildWorkDir } from '../../../../runtime/testing/controlplane/cache.ts';
import { fakeGo, tempDir } from './fakes.ts';

function fakeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Downloads off: these tests are about the build.
  return {
    XDG_CACHE_HOME: tempDir('xdg'),
    PATH: `${fakeGo(tempDir('go'))}:/usr/bin:/bin`,
    KOPF_ENVTEST_INDEX: 'off',
    ...extra
  };
}

test('missing binaries are built into the cache, step by step, with progress', async () => {
  const env = fakeEnv();
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, requireKubectl: true, onProgress: (line) => lines.push(line) });
  const dir = binaryCacheDir(env);
  assert.deepEqual(
    binaries,
    { apiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd'), kubectl: join(dir, 'kubectl') },
  );
  assert.deepEqual(readdirSync(dir).sort(), ['SHA512SUMS', 'etcd', 'kube-apiserver', 'kubectl']);
  assert.ok(lines.some((line) => /step 1\/7: read k8s\.io\/kubernetes@v[\d.]+'s go\.mod/.test(line)), lines.join('\n'));
  assert.ok(lines.some((line) => /step 7\/7: install into/.test(line)));
  assert.ok(lines.some((line) => /built in \d/.test(line)));
  const goMod = readFileSync(join(buildWorkDir(env), 'kubernetes', 'go.mod'), 'utf8');
  assert.match(goMod, /k8s\.io\/api => k8s\.io\/api v0\.\d+\.\d+/);
  assert.ok(!existsSync(join(buildWorkDir(env), 'build.lock')), 'the lock is released');
});

test('a failed step is named, and its log kept and shown', async () => {
  const env = fakeEnv({ FAKE_GO_FAIL: 'get' });
  const lines: string[] = [];
  await assert.rejects(buildBinaries(['kube-apiserver', 'etcd'], { env, onProgress: (line) => lines.push(line) }), (
    error: Error
  ) => {
    assert.ok(error instanceof BuildError);
    assert.match(error.step, /resolve the dependencies of k8s\.io\/kubernetes/);
    assert.match(error.message, /failed at step "resolve the dependencies/);
    assert.ok(error.message.includes(`Full log: ${error.logPath}`));
    assert.match(error.message, /simulated failure of go get/);
    assert.match(readFileSync(error.logPath, 'utf8'), /simulated failure of go get/);
    return true;
  });
  assert.deepEqual(readdirSync(binaryCacheDir(env)), [], 'nothing half-built is left in the cache');
});

test('a long step keeps reporting that it is still going', async () => {
  const env = fakeEnv({ FAKE_GO_SLEEP: '0.5' });
  const lines: string[] = [];
  await buildBinaries(['etcd'], { env, heartbeatMs: 100, onProgress: (line) => lines.push(line) });
  assert.ok(
    lines.some((line) => /still at step \d\/\d: compile etcd .*: [\d.]+s \(total/.test(line)),
    lines.join('\n'),
  );
});

test('two builds at once: the second waits for the first and does not build again', async () => {
  const env = fakeEnv({ FAKE_GO_SLEEP: '0.5' });
  const first: string[] = [];
  const second: string[] = [];
  await Promise.all([
    buildBinaries(['etcd'], { env, onProgress: (line) => first.push(line) }),
    buildBinaries(['etcd'], { env, onProgress: (line) => second.push(line) }),
  ]);
  assert.ok(first.some((line) => /compile etcd/.test(line)));
  assert.ok(second.some((line) => /waiting for another build/.test(line)), second.join('\n'));
  assert.ok(second.some((line) => /built by another process meanwhile/.test(line)));
  assert.ok(!second.some((line) => /compile etcd/.test(line)));
});
