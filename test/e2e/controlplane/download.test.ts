/**
 * The download path for real: the binaries this machine built, packed as envtest publishes them
 * (`controller-tools/envtest/<name>` in a tar.gz, its SHA-512 in the index), served by a local
 * server standing in for the official host; downloaded into an empty cache, verified, unpacked,
 * and a control plane started from them serves.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VersionApi } from '@kubernetes/client-node';
import { KUBERNETES_VERSION, ensureBinaries, lookUpBinaries, startControlPlane } from '../../../runtime/testing.ts';
import { controlPlaneCacheDir } from '../../../runtime/testing/controlplane/cache.ts';
import { envtestFolderName, envtestPlatform } from '../../../runtime/testing/controlplane/envtest.ts';
import {
  envtestEntries, indexYaml, serve, writeTarGz, type EnvtestServer,
} from '../../unit/testing/controlplane/envtest-server.ts';
import { tempDir } from '../../unit/testing/controlplane/fakes.ts';

const platform = envtestPlatform();
let server: EnvtestServer;
let built: Record<'kube-apiserver' | 'etcd' | 'kubectl', string>;
let env: NodeJS.ProcessEnv;

before(async () => {
  assert.ok(platform, `envtest publishes no binaries for ${process.platform}/${process.arch}`);
  const { apiServer, etcd, kubectl } = await ensureBinaries({ requireKubectl: true });
  assert.ok(kubectl, 'kubectl is needed for envtest\'s layout');
  built = { 'kube-apiserver': apiServer, etcd, kubectl };
  const name = `envtest-v${KUBERNETES_VERSION}-${platform.os}-${platform.arch}.tar.gz`;
  const archive = join(tempDir('envtest-archive'), name);
  const bodies = Object.fromEntries(Object.entries(built).map(([binary, file]) => [binary, { file }]));
  const hash = await writeTarGz(archive, envtestEntries(bodies));
  // Where GitHub's releases keep it, as the official index says.
  const path = `/releases/download/envtest-v${KUBERNETES_VERSION}/${name}`;
  const files = new Map<string, Buffer | { file: string }>([[path, { file: archive }]]);
  server = await serve(files);
  const url = `${server.url}${path}`;
  files.set('/envtest-releases.yaml', Buffer.from(indexYaml([{ version: KUBERNETES_VERSION, name, hash, url }])));
  // Only the local index and an empty cache: nothing found elsewhere, nothing built.
  const own = ([key]: [string, unknown]): boolean => key === 'KUBEBUILDER_ASSETS' || key.startsWith('TEST_ASSET_');
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter((entry) => !own(entry))),
    XDG_CACHE_HOME: tempDir('xdg'),
    KOPF_ENVTEST_INDEX: `${server.url}/envtest-releases.yaml`,
    PATH: tempDir('nopath'),
  };
});

after(async () => {
  await server?.close();
});

test('the prebuilt binaries are downloaded into an empty cache as they were, and a control plane runs on ' +
  'them', async () => {
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, requireKubectl: true, onProgress: (line) => lines.push(line) });
  assert.ok(lines.some((line) => /SHA-512 verified, unpacked into/.test(line)), lines.join('\n'));
  const dir = join(controlPlaneCacheDir(env), envtestFolderName(KUBERNETES_VERSION, platform ?? { os: '', arch: '' }));
  assert.deepEqual(
    binaries,
    { apiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd'), kubectl: join(dir, 'kubectl') },
  );
  for (const [name, file] of Object.entries(built)) {
    assert.equal(sha256(join(dir, name)), sha256(file), `${name} is what was packed`);
  }
  const sources = lookUpBinaries(env).sources;
  assert.deepEqual(sources, { 'kube-apiserver': 'download', etcd: 'download', kubectl: 'download' });

  const cp = await startControlPlane({ env });
  try {
    const version = await cp.kubeconfig.makeApiClient(VersionApi).getCode();
    assert.equal(version.gitVersion, `v${KUBERNETES_VERSION}`);
  } finally {
    await cp.stop();
  }
});

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
