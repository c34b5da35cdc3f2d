/**
 * The download of envtest's prebuilt binaries, against a local server in the official layout:
 * chosen, verified, unpacked into the cache and found there; a wrong checksum, a hostile archive
 * or index refused with nothing cached; an index out of reach falls back to the build, or to a
 * message saying what to install when there is no Go.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import {
  BinariesNotFoundError, ensureBinaries, lookUpBinaries,
} from '../../../../runtime/testing/controlplane/binaries.ts';
import { binaryCacheDir, controlPlaneCacheDir } from '../../../../runtime/testing/controlplane/cache.ts';
import { downloadBinaries } from '../../../../runtime/testing/controlplane/downloading.ts';
import {
  DEFAULT_INDEX_URL, DownloadError, chooseArchive, envtestPlatform, indexUrl,
} from '../../../../runtime/testing/controlplane/envtest.ts';
import { extractFiles } from '../../../../runtime/testing/controlplane/untar.ts';
import { KUBERNETES_VERSION } from '../../../../runtime/testing/controlplane/versions.ts';
import { envtestEntries, indexYaml, serve, writeTarGz, type EnvtestServer, type TarEntry } from './envtest-server.ts';
import { fakeGo, tempDir } from './fakes.ts';

const platform = envtestPlatform() ?? { os: 'linux', arch: 'amd64' };
const [MAJOR, MINOR] = KUBERNETES_VERSION.split('.');
const archiveName = (version: string): string => `envtest-v${version}-${platform.os}-${platform.arch}.tar.gz`;
const script = (name: string): Buffer => Buffer.from(`#!/bin/sh\necho ${name}\n`);
const BINARIES = { 'kube-apiserver': script('kube-apiserver'), etcd: script('etcd'), kubectl: script('kubectl') };
const servers: EnvtestServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

/** A server with an index listing one archive per version given (its entries, or envtest's three binaries). */
async function envtestServer(
  archives: Record<string, readonly TarEntry[]>, tamper?: { version: string; hash: string },
): Promise<{ server: EnvtestServer; index: string }> {
  const dir = tempDir('archives');
  const files = new Map<string, Buffer | { file: string }>();
  const listed: { version: string; name: string; hash: string; url: string }[] = [];
  for (const [version, entries] of Object.entries(archives)) {
    const file = join(dir, archiveName(version));
    const hash = await writeTarGz(file, entries);
    files.set(`/download/${archiveName(version)}`, { file });
    const listedHash = tamper?.version === version ? tamper.hash : hash;
    listed.push({ version, name: archiveName(version), hash: listedHash, url: '' });
  }
  const server = await serve(files);
  servers.push(server);
  for (const entry of listed) entry.url = `${server.url}/download/${entry.name}`;
  files.set('/envtest-releases.yaml', Buffer.from(indexYaml(listed)));
  return { server, index: `${server.url}/envtest-releases.yaml` };
}

function envWith(index: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { XDG_CACHE_HOME: tempDir('xdg'), PATH: tempDir('nopath'), KOPF_ENVTEST_INDEX: index, ...extra };
}

/** What the cache's control-plane folder holds besides locks: nothing half-done may stay. */
function cacheEntries(env: NodeJS.ProcessEnv): string[] {
  const dir = controlPlaneCacheDir(env);
  return existsSync(dir) ? readdirSync(dir).filter((entry) => !entry.endsWith('.lock')).sort() : [];
}

test('missing binaries are downloaded, verified, unpacked into the cache, and found there next time', async () => {
  const { server, index } = await envtestServer({ [KUBERNETES_VERSION]: envtestEntries(BINARIES) });
  const env = envWith(index);
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, requireKubectl: true, onProgress: (line) => lines.push(line) });
  const dir = join(controlPlaneCacheDir(env), `envtest-v${KUBERNETES_VERSION}-${platform.os}-${platform.arch}`);
  const paths = { apiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd'), kubectl: join(dir, 'kubectl') };
  assert.deepEqual(binaries, paths);
  for (const [name, content] of Object.entries(BINARIES)) {
    assert.deepEqual(readFileSync(join(dir, name)), content);
    assert.ok((statSync(join(dir, name)).mode & 0o100) !== 0, `${name} is executable`);
  }
  assert.deepEqual(
    readdirSync(dir).sort(), ['SHA512SUMS', 'etcd', 'kube-apiserver', 'kubectl'], 'no folder of the archive is made',
  );
  assert.deepEqual(cacheEntries(env), [`envtest-v${KUBERNETES_VERSION}-${platform.os}-${platform.arch}`]);
  const downloading = `downloading the prebuilt binaries of Kubernetes v${KUBERNETES_VERSION}`;
  assert.ok(lines.some((line) => line.includes(downloading)), lines.join('\n'));
  assert.ok(lines.some((line) => /SHA-512 verified, unpacked into/.test(line)), lines.join('\n'));
  const sources = lookUpBinaries(env).sources;
  assert.deepEqual(sources, { 'kube-apiserver': 'download', etcd: 'download', kubectl: 'download' });
  assert.equal(lookUpBinaries(env).downloadedVersion, KUBERNETES_VERSION);

  const requests = server.requests.length;
  await ensureBinaries({ env, requireKubectl: true });
  assert.equal(server.requests.length, requests, 'found in the cache: nothing is asked of the server');
});

test('the pinned version if listed, else the newest patch of its minor; never another minor or a prerelease', () => {
  const url = 'https://example.invalid/index.yaml';
  const hash = 'ab'.repeat(64);
  type Listed = { version: string; name: string; hash: string; url: string };
  const entry = (version: string, name = archiveName(version)): Listed => (
    { version, name, hash, url: `https://example.invalid/${name}` });
  const patches = ['1', '9', '10'].map((patch) => entry(`${MAJOR}.${MINOR}.${patch}`));
  const others = [entry(`${MAJOR}.${Number(MINOR) + 1}.0`), entry(`${MAJOR}.${Number(MINOR) - 1}.99`)];
  const newest = chooseArchive(indexYaml([...patches, ...others]), url, platform);
  assert.equal(newest.version, `${MAJOR}.${MINOR}.10`);
  assert.equal(newest.url, `https://example.invalid/${archiveName(newest.version)}`);
  const pinned = chooseArchive(indexYaml([...patches, entry(KUBERNETES_VERSION)]), url, platform);
  assert.equal(pinned.version, KUBERNETES_VERSION);
  const beta = `${MAJOR}.${MINOR}.99-beta.0`;
  const prerelease = `releases:\n  v${beta}:\n    envtest-v${beta}-${platform.os}-${platform.arch}.tar.gz:\n`
    + `      hash: ${hash}\n      selfLink: https://example.invalid/x.tar.gz\n`;
  assert.throws(() => chooseArchive(prerelease, url, platform), /lists no Kubernetes \d+\.\d+\.x for/);
  const otherPlatform = indexYaml([entry(KUBERNETES_VERSION, `envtest-v${KUBERNETES_VERSION}-plan9-mips.tar.gz`)]);
  assert.throws(() => chooseArchive(otherPlatform, url, platform), DownloadError);
});

test('an index that is no index, or gives no hash or no http(s) address, is refused', () => {
  const url = 'https://example.invalid/index.yaml';
  const listed = (hash: string, selfLink: string): string =>
    `releases:\n  v${KUBERNETES_VERSION}:\n    ${archiveName(KUBERNETES_VERSION)}:\n`
    + `      hash: ${hash}\n      selfLink: ${selfLink}\n`;
  assert.throws(() => chooseArchive('<html>not found</html>', url, platform), /the index has no `releases`/);
  assert.throws(() => chooseArchive('releases: [1, 2', url, platform), /the index is not YAML/);
  assert.throws(() => chooseArchive(listed('abc', 'https://example.invalid/a.tar.gz'), url, platform), /no SHA-512/);
  const local = listed('ab'.repeat(64), 'file:///etc/passwd');
  assert.throws(() => chooseArchive(local, url, platform), /no http\(s\) address/);
  // A relative address is taken relative to the index, as a mirror may list its archives.
  const relative = chooseArchive(listed('AB'.repeat(64), 'a.tar.gz'), url, platform);
  assert.equal(relative.url, 'https://example.invalid/a.tar.gz');
  assert.equal(relative.sha512, 'ab'.repeat(64));
});

test('KOPF_ENVTEST_INDEX: the official index by default, another one, or off', () => {
  assert.equal(indexUrl({}), DEFAULT_INDEX_URL);
  assert.equal(DEFAULT_INDEX_URL,
    'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml');
  const mirror = 'http://mirror.example/index.yaml';
  assert.equal(indexUrl({ KOPF_ENVTEST_INDEX: mirror }), mirror);
  assert.equal(indexUrl({ KOPF_ENVTEST_INDEX: 'off' }), null);
  assert.deepEqual(envtestPlatform('linux', 'x64'), { os: 'linux', arch: 'amd64' });
  assert.deepEqual(envtestPlatform('darwin', 'arm64'), { os: 'darwin', arch: 'arm64' });
  assert.equal(envtestPlatform('win32', 'x64'), null);
});

test('an archive whose checksum is not the index\'s is refused, and nothing is cached', async () => {
  const tamper = { version: KUBERNETES_VERSION, hash: 'cd'.repeat(64) };
  const { index } = await envtestServer({ [KUBERNETES_VERSION]: envtestEntries(BINARIES) }, tamper);
  const env = envWith(index);
  await assert.rejects(downloadBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.ok(error instanceof DownloadError);
    assert.match(error.message, /does not match the index's SHA-512 .*: refused/);
    return true;
  });
  assert.deepEqual(cacheEntries(env), []);
  await assert.rejects(ensureBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.ok(error instanceof BinariesNotFoundError);
    assert.match(error.message, /they could not be downloaded \(envtest-v.* does not match the index's SHA-512/);
    return true;
  });
  assert.deepEqual(cacheEntries(env), []);
});

test('a hostile archive writes nothing outside its folder: paths, links and folders are never followed', async () => {
  const outside = tempDir('outside');
  const { index } = await envtestServer({
    [KUBERNETES_VERSION]: [
      { name: `${'../'.repeat(12)}${outside.slice(1)}/kube-apiserver`, body: BINARIES['kube-apiserver'] },
      { name: `${outside}/etcd`, body: BINARIES.etcd },
      { name: 'controller-tools/envtest/kubectl', type: '2', linkname: `${outside}/linked` },
      { name: 'controller-tools/envtest/passwd', type: '1', linkname: '/etc/passwd' },
      { name: `${outside}/made/`, type: '5' },
    ],
  });
  const env = envWith(index);
  const dir = await downloadBinaries({ env, onProgress: () => {} });
  assert.deepEqual(readdirSync(outside), [], 'nothing was written outside');
  // A regular file is named by the last segment of its path; the symlink named kubectl is not made.
  assert.deepEqual(readdirSync(dir).sort(), ['SHA512SUMS', 'etcd', 'kube-apiserver']);
  assert.deepEqual(readFileSync(join(dir, 'kube-apiserver')), BINARIES['kube-apiserver']);
  assert.deepEqual(readFileSync(join(dir, 'etcd')), BINARIES.etcd);
});

test('an archive without etcd, or with it twice, is refused and nothing is cached', async () => {
  const { index } = await envtestServer({
    [KUBERNETES_VERSION]: [
      ...envtestEntries({ 'kube-apiserver': BINARIES['kube-apiserver'], kubectl: BINARIES.kubectl }),
      { name: 'controller-tools/envtest/etcd', type: '2', linkname: '/usr/bin/etcd' },
    ],
  });
  const env = envWith(index);
  await assert.rejects(downloadBinaries({ env, onProgress: () => {} }), /holds no etcd/);
  assert.deepEqual(cacheEntries(env), []);

  const twice = await envtestServer({
    [KUBERNETES_VERSION]: [...envtestEntries(BINARIES), { name: 'other/etcd', body: script('another etcd') }],
  });
  const env2 = envWith(twice.index);
  await assert.rejects(downloadBinaries({ env: env2, onProgress: () => {} }), /holds etcd twice/);
  assert.deepEqual(cacheEntries(env2), []);
});

test('untar: damaged, truncated, oversized and not-gzipped archives are refused; long names are read', async () => {
  const dir = tempDir('untar');
  const wanted = new Set(['etcd']);
  const archive = join(dir, 'a.tar.gz');
  const extract = (maxBytes = 1 << 20): Promise<string[]> =>
    extractFiles(archive, tempDir('into'), wanted, { maxBytes });
  const longName = `${'x'.repeat(150)}/etcd`;
  await writeTarGz(archive, [
    { name: '././@LongLink', type: 'L', body: Buffer.from(`${longName}\0`) },
    { name: 'x'.repeat(99), body: script('etcd') },
  ]);
  assert.deepEqual(await extract(), ['etcd']);
  await writeTarGz(archive, [
    { name: 'pax', type: 'x', body: Buffer.from('17 path=dir/etcd\n') },
    { name: 'not-it', body: script('etcd') },
  ]);
  assert.deepEqual(await extract(), ['etcd']);

  await writeTarGz(archive, [{ name: 'etcd', body: Buffer.alloc(64 * 1024) }]);
  await assert.rejects(extract(16 * 1024), /unpacks to more than 16384 bytes/);
  writeFileSync(archive, 'plain text, not gzip');
  await assert.rejects(extract(), /not a gzipped archive/);
  writeFileSync(archive, gzipSync(Buffer.alloc(1024, 'a')));
  await assert.rejects(extract(), /not a tar archive/);
  await writeTarGz(archive, [{ name: 'etcd', body: script('etcd') }]);
  const header = gunzipSync(readFileSync(archive)).subarray(0, 512);
  writeFileSync(archive, gzipSync(Buffer.concat([header, Buffer.from('#!/b')])));
  await assert.rejects(extract(), /ends inside an entry/);
  header[0] ^= 1;
  writeFileSync(archive, gzipSync(header));
  await assert.rejects(extract(), /a header checksum is wrong/);
});

test('an index out of reach: the binaries are built instead where Go is installed', async () => {
  const { server, index } = await envtestServer({});
  await server.close();
  const env = envWith(index, { PATH: `${fakeGo(tempDir('go'))}:/usr/bin:/bin` });
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, onProgress: (line) => lines.push(line) });
  assert.equal(binaries.apiServer, join(binaryCacheDir(env), 'kube-apiserver'));
  const refused =
    /could not download the prebuilt binaries: GET http:\/\/127\.0\.0\.1:\d+\/envtest-releases\.yaml: .*ECONNREFUSED/;
  assert.ok(lines.some((line) => refused.test(line)), lines.join('\n'));
  assert.ok(lines.some((line) => /building from the Go module proxy/.test(line)), lines.join('\n'));
});

test('an index out of reach and no Go: the message says what could not be downloaded and what to install', async () => {
  const { server, index } = await envtestServer({});
  await server.close();
  const env = envWith(index);
  await assert.rejects(ensureBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.ok(error instanceof BinariesNotFoundError);
    assert.match(error.message, /^The local control plane needs kube-apiserver, etcd /);
    const refused =
      /they could not be downloaded \(GET http:\/\/127\.0\.0\.1:\d+\/envtest-releases\.yaml: .*ECONNREFUSED.*\)/;
    assert.match(error.message, refused);
    assert.ok(error.message.includes(`let this machine reach ${index}`));
    assert.match(error.message, /install Go >= 1\.26 \(https:\/\/go\.dev\/dl\/\) and put `go` on PATH/);
    assert.match(error.message, /set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl/);
    return true;
  });
  assert.deepEqual(cacheEntries(env), []);
});

test('an index that answers 404 is a failure to download like any other', async () => {
  const { server } = await envtestServer({});
  const env = envWith(`${server.url}/no-such-index.yaml`);
  const notFound = /GET http:\/\/127\.0\.0\.1:\d+\/no-such-index\.yaml answered 404/;
  await assert.rejects(downloadBinaries({ env, onProgress: () => {} }), notFound);
});

test('KOPF_ENVTEST_INDEX=off: nothing is downloaded, and the message says so', async () => {
  const env = envWith('off');
  await assert.rejects(ensureBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.match(error.message, /they could not be downloaded \(downloads are off \(KOPF_ENVTEST_INDEX=off\)\)/);
    assert.match(error.message, /unset KOPF_ENVTEST_INDEX=off/);
    return true;
  });
});
