import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  BinariesNotFoundError, ensureBinaries, lookUpBinaries, missingBinariesMessage, testAssetVariable,
} from '../../../../runtime/testing/controlplane/binaries.ts';
import { binaryCacheDir, controlPlaneCacheDir } from '../../../../runtime/testing/controlplane/cache.ts';
import { envtestFolderName, envtestPlatform } from '../../../../runtime/testing/controlplane/envtest.ts';
import { KUBERNETES_VERSION, cacheFolderName } from '../../../../runtime/testing/controlplane/versions.ts';
import { fakeExecutable, fakeVerified, tempDir } from './fakes.ts';

function fullSet(dir: string): void {
  fakeVerified(dir, ['kube-apiserver', 'etcd', 'kubectl']);
}

test('envtest variable names', () => {
  assert.equal(testAssetVariable('kube-apiserver'), 'TEST_ASSET_KUBE_APISERVER');
  assert.equal(testAssetVariable('etcd'), 'TEST_ASSET_ETCD');
  assert.equal(testAssetVariable('kubectl'), 'TEST_ASSET_KUBECTL');
});

test('the cache follows XDG_CACHE_HOME and names both versions', () => {
  const xdg = tempDir('xdg');
  assert.equal(binaryCacheDir({ XDG_CACHE_HOME: xdg }), join(xdg, 'kopf', 'control-plane', cacheFolderName()));
  assert.match(cacheFolderName('linux', 'x64'), /^v\d+\.\d+\.\d+-etcd-v\d+\.\d+\.\d+-linux-x64$/);
});

test('lookup order: TEST_ASSET_<NAME>, then KUBEBUILDER_ASSETS, then the cache (built, then downloaded)', () => {
  const xdg = tempDir('xdg');
  const env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: xdg };
  const platform = envtestPlatform() ?? { os: 'linux', arch: 'amd64' };
  const minor = KUBERNETES_VERSION.split('.').slice(0, 2).join('.');
  // Of the downloaded ones, the newest patch of the pinned minor; another minor is not taken.
  const downloadedDir = (version: string): string => join(
    controlPlaneCacheDir(env),
    envtestFolderName(version, platform),
  );
  for (const version of [`${minor}.1`, `${minor}.12`, '0.1.0']) fullSet(downloadedDir(version));
  const downloaded = lookUpBinaries(env);
  assert.deepEqual(downloaded.sources, { 'kube-apiserver': 'download', etcd: 'download', kubectl: 'download' });
  assert.equal(downloaded.downloadedVersion, `${minor}.12`);
  assert.equal(downloaded.paths.etcd, join(downloadedDir(`${minor}.12`), 'etcd'));
  fullSet(binaryCacheDir(env));
  assert.deepEqual(lookUpBinaries(env).sources, { 'kube-apiserver': 'cache', etcd: 'cache', kubectl: 'cache' });

  const assets = tempDir('assets');
  fullSet(assets);
  env.KUBEBUILDER_ASSETS = assets;
  const viaAssets = lookUpBinaries(env);
  assert.deepEqual(
    viaAssets.sources,
    { 'kube-apiserver': 'KUBEBUILDER_ASSETS', etcd: 'KUBEBUILDER_ASSETS', kubectl: 'KUBEBUILDER_ASSETS' },
  );
  assert.equal(viaAssets.paths.etcd, join(assets, 'etcd'));

  const own = fakeExecutable(tempDir('own'), 'my-etcd');
  env.TEST_ASSET_ETCD = own;
  const viaVariable = lookUpBinaries(env);
  assert.equal(viaVariable.paths.etcd, own);
  assert.equal(viaVariable.sources.etcd, 'TEST_ASSET_ETCD');
  assert.equal(viaVariable.sources['kube-apiserver'], 'KUBEBUILDER_ASSETS');
  assert.deepEqual(viaVariable.problems, []);
});

test('nothing anywhere: all missing, no problems (so they get built)', () => {
  const lookup = lookUpBinaries({ XDG_CACHE_HOME: tempDir('xdg') });
  assert.deepEqual(lookup.missing, ['kube-apiserver', 'etcd', 'kubectl']);
  assert.deepEqual(lookup.problems, []);
});

test('explicit settings that point nowhere are errors, never silently built over', async () => {
  const assets = tempDir('assets');
  fakeExecutable(assets, 'kube-apiserver');
  const env: NodeJS.ProcessEnv = {
    XDG_CACHE_HOME: tempDir('xdg'),
    KUBEBUILDER_ASSETS: assets,
    TEST_ASSET_KUBECTL: '/nonexistent/kubectl',
  };
  const lookup = lookUpBinaries(env);
  assert.equal(lookup.problems.length, 2);
  assert.match(lookup.problems.join('\n'), /KUBEBUILDER_ASSETS=.* holds no executable etcd/);
  assert.match(lookup.problems.join('\n'), /TEST_ASSET_KUBECTL=\/nonexistent\/kubectl is not an executable file/);
  await assert.rejects(
    ensureBinaries({ env }),
    (error: Error) => error instanceof BinariesNotFoundError && /holds no executable etcd/.test(error.message),
  );
});

test('KUBEBUILDER_ASSETS without kubectl is fine: the control plane does not need it', async () => {
  const assets = tempDir('assets');
  fakeExecutable(assets, 'kube-apiserver');
  fakeExecutable(assets, 'etcd');
  const env: NodeJS.ProcessEnv = {
    XDG_CACHE_HOME: tempDir('xdg'),
    KUBEBUILDER_ASSETS: assets,
    PATH: tempDir('nopath'),
  };
  const binaries = await ensureBinaries({ env });
  assert.equal(binaries.apiServer, join(assets, 'kube-apiserver'));
  assert.equal(binaries.etcd, join(assets, 'etcd'));
  assert.equal(binaries.kubectl, null);
});

test('without binaries, downloads and go: a message saying exactly what to install or set', async () => {
  const xdg = tempDir('xdg');
  const env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: xdg, PATH: tempDir('nopath'), KOPF_ENVTEST_INDEX: 'off' };
  await assert.rejects(ensureBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.ok(error instanceof BinariesNotFoundError);
    const downloadFailure = 'downloads are off (KOPF_ENVTEST_INDEX=off)';
    assert.equal(error.message, missingBinariesMessage(env, ['kube-apiserver', 'etcd'], downloadFailure));
    assert.match(error.message, /install Go >= 1\.26 \(https:\/\/go\.dev\/dl\/\) and put `go` on PATH/);
    assert.match(error.message, /set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl/);
    assert.match(error.message, /set TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD/);
    assert.ok(error.message.includes(controlPlaneCacheDir(env)));
    return true;
  });
});

test('without go, a missing kubectl is no failure even when asked for: the control plane runs without it', async () => {
  const env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: tempDir('xdg'), PATH: tempDir('nopath'), KOPF_ENVTEST_INDEX: 'off' };
  fakeVerified(binaryCacheDir(env), ['kube-apiserver', 'etcd']);
  const binaries = await ensureBinaries({ env, requireKubectl: true, onProgress: () => {} });
  assert.equal(binaries.kubectl, null);
});
