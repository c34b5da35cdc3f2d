/**
 * The control plane's binaries run as the user, so a folder planted in their cache must never be
 * run: the root, each folder and each binary must be the user's own and writable by no one else,
 * and each binary must still have the SHA-512 recorded when it came. A folder that fails is
 * refused with a warning, never wins by a newer version, and is left alone: the binaries come
 * again into a new folder beside it (which is also what happens to a folder of an older kopf).
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  BinariesNotFoundError, ensureBinaries, lookUpBinaries, untrustedRootMessage,
} from '../../../runtime/testing/controlplane/binaries.ts';
import { binaryCacheDir, controlPlaneCacheDir } from '../../../runtime/testing/controlplane/cache.ts';
import { envtestFolderName, envtestPlatform } from '../../../runtime/testing/controlplane/envtest.ts';
import { RECORD, sha512Of, verifyFolder } from '../../../runtime/testing/controlplane/verified.ts';
import { KUBERNETES_VERSION, cacheFolderName } from '../../../runtime/testing/controlplane/versions.ts';
import { fakeExecutable, fakeGo, fakeVerified, tempDir } from '../testing/controlplane/fakes.ts';

const platform = envtestPlatform() ?? { os: 'linux', arch: 'amd64' };
const minor = KUBERNETES_VERSION.split('.').slice(0, 2).join('.');
const BOTH = ['kube-apiserver', 'etcd'] as const;

/** A cache of its own, no downloads, and a `go` that builds fake binaries when asked. */
function cacheEnv(): NodeJS.ProcessEnv {
  return { XDG_CACHE_HOME: tempDir('xdg'), PATH: `${fakeGo(tempDir('go'))}:/usr/bin:/bin`, KOPF_ENVTEST_INDEX: 'off' };
}

function downloadedDir(env: NodeJS.ProcessEnv, version: string): string {
  return join(controlPlaneCacheDir(env), envtestFolderName(version, platform));
}

/** What an attacker leaves: binaries and a record that matches them, all open to anyone. */
function planted(dir: string): void {
  fakeVerified(dir, BOTH);
  for (const entry of [dir, join(dir, RECORD), join(dir, 'etcd'), join(dir, 'kube-apiserver')]) chmodSync(entry, 0o777);
}

test('a planted folder open to anyone, of a newer patch, is refused with a warning; the verified one is used', async (
) => {
  const env = cacheEnv();
  const verified = downloadedDir(env, KUBERNETES_VERSION);
  fakeVerified(verified, BOTH);
  const plantedDir = downloadedDir(env, `${minor}.99`);
  planted(plantedDir);
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, onProgress: (line) => lines.push(line) });
  assert.equal(binaries.etcd, join(verified, 'etcd'));
  assert.equal(lookUpBinaries(env).downloadedVersion, KUBERNETES_VERSION);
  const warning = lines.find((line) => line.includes(`warning: not using ${plantedDir}`));
  assert.match(warning ?? lines.join('\n'), /the folder is writable by others \(mode 777\)/);
});

test('an unverified folder (no record, as an older kopf left it) never wins by a newer patch version', () => {
  const env = cacheEnv();
  fakeVerified(downloadedDir(env, `${minor}.1`), BOTH);
  for (const name of BOTH) fakeExecutable(downloadedDir(env, `${minor}.99`), name);
  const lookup = lookUpBinaries(env);
  assert.equal(lookup.downloadedVersion, `${minor}.1`);
  assert.equal(lookup.paths.etcd, join(downloadedDir(env, `${minor}.1`), 'etcd'));
  assert.match(lookup.refused.join('\n'), new RegExp(`${minor}\\.99.*: its ${RECORD} cannot be used \\(ENOENT\\)`));
});

test('each binary is checked against its record before every use: a changed one is refused', () => {
  const env = cacheEnv();
  const dir = binaryCacheDir(env);
  fakeVerified(dir, BOTH);
  assert.equal(lookUpBinaries(env).sources.etcd, 'cache');
  writeFileSync(join(dir, 'etcd'), '#!/bin/sh\necho swapped\n');
  const lookup = lookUpBinaries(env);
  assert.deepEqual(lookup.missing, ['kube-apiserver', 'etcd', 'kubectl'], 'the whole folder is refused');
  assert.match(lookup.refused.join('\n'), /etcd does not match its recorded SHA-512/);
});

test('a binary, a record or a folder that others may write, or a binary that is a link, is refused', () => {
  const elsewhere = fakeExecutable(tempDir('elsewhere'), 'etcd');
  const cases: [string, (dir: string) => void, RegExp][] = [
    ['binary', (dir) => chmodSync(join(dir, 'etcd'), 0o775), /etcd is writable by others \(mode 775\)/],
    ['record', (dir) => chmodSync(join(dir, RECORD), 0o666), new RegExp(`${RECORD} is writable by others`)],
    ['folder', (dir) => chmodSync(dir, 0o757), /the folder is writable by others \(mode 757\)/],
    // A link to a file that has the recorded digest: links are not followed.
    ['link', (dir) => {
      rmSync(join(dir, 'etcd'));
      symlinkSync(elsewhere, join(dir, 'etcd'));
    }, /etcd is not a file/],
  ];
  for (const [what, spoil, reason] of cases) {
    const dir = join(tempDir(what), 'binaries');
    fakeVerified(dir, BOTH);
    assert.ok(!('refused' in verifyFolder(dir)), `${what}: intact, it passes`);
    spoil(dir);
    const verdict = verifyFolder(dir);
    assert.ok('refused' in verdict, what);
    assert.match(verdict.refused, reason, what);
  }
});

test('a folder or binary of another user is refused', () => {
  const dir = join(tempDir('theirs'), 'binaries');
  fakeVerified(dir, BOTH);
  const other = (process.getuid?.() ?? 0) + 1;
  const verdict = verifyFolder(dir, other);
  assert.ok('refused' in verdict);
  assert.match(verdict.refused, /the folder is owned by another user \(uid \d+\)/);
  if (process.getuid?.() !== 0) return;
  // As root (as here in a container), the files can really be another user's.
  chownSync(join(dir, 'etcd'), 4321, 4321);
  const owned = verifyFolder(dir);
  assert.ok('refused' in owned);
  assert.match(owned.refused, /etcd is owned by another user \(uid 4321\)/);
});

test('a malformed or oversized record is refused, never half read', () => {
  for (const [what, text] of [
    ['unknown name', `${'a'.repeat(128)}  ../../bin/sh\n`],
    ['short digest', `${'a'.repeat(64)}  etcd\n`],
    ['twice', `${'a'.repeat(128)}  etcd\n${'b'.repeat(128)}  etcd\n`],
    ['oversized', `${'a'.repeat(128)}  etcd\n`.repeat(40)],
  ] as const) {
    const dir = join(tempDir('record'), 'binaries');
    fakeVerified(dir, BOTH);
    writeFileSync(join(dir, RECORD), text);
    const verdict = verifyFolder(dir);
    assert.ok('refused' in verdict, what);
    assert.match(verdict.refused, /SHA512SUMS is (malformed|too big)/, what);
  }
});

test('a root that others may write into: nothing in it is used, nothing is built into it', async () => {
  const env = cacheEnv();
  const root = controlPlaneCacheDir(env);
  fakeVerified(binaryCacheDir(env), BOTH);
  chmodSync(root, 0o777);
  const lookup = lookUpBinaries(env);
  assert.equal(lookup.paths.etcd, undefined);
  assert.equal(lookup.rootRefused, `${root} is writable by others (mode 777)`);
  await assert.rejects(ensureBinaries({ env, onProgress: () => {} }), (error: Error) => {
    assert.ok(error instanceof BinariesNotFoundError);
    assert.equal(error.message, untrustedRootMessage(`${root} is writable by others (mode 777)`));
    return true;
  });
  assert.deepEqual(readdirSync(root).sort(), [cacheFolderName()], 'nothing was built there');
});

test('a folder of an older kopf (no record) is left alone; the binaries are built into a new folder beside it', async (
) => {
  const env = cacheEnv();
  const legacy = binaryCacheDir(env);
  for (const name of BOTH) fakeExecutable(legacy, name, 'echo legacy');
  const lines: string[] = [];
  const binaries = await ensureBinaries({ env, onProgress: (line) => lines.push(line) });
  const fresh = `${legacy}.1`;
  assert.deepEqual(binaries, { apiServer: join(fresh, 'kube-apiserver'), etcd: join(fresh, 'etcd'), kubectl: null });
  assert.deepEqual(readdirSync(legacy).sort(), ['etcd', 'kube-apiserver'], 'the old folder is untouched');
  assert.match(readFileSync(join(legacy, 'etcd'), 'utf8'), /echo legacy/);
  assert.ok(lines.some((line) => line.includes(`warning: not using ${legacy}: its ${RECORD}`)), lines.join('\n'));
  const record = readFileSync(join(fresh, RECORD), 'utf8');
  const line = (name: string): string => `${sha512Of(join(fresh, name))}  ${name}\n`;
  assert.equal(record, line('kube-apiserver') + line('etcd'));
  // Next time the new folder is found, and kubectl is added to it, its record with it.
  const again = await ensureBinaries({ env, requireKubectl: true, onProgress: () => {} });
  assert.equal(again.kubectl, join(fresh, 'kubectl'));
  assert.match(readFileSync(join(fresh, RECORD), 'utf8'), /^[0-9a-f]{128} {2}kubectl$/m);
  assert.deepEqual(lookUpBinaries(env).sources, { 'kube-apiserver': 'cache', etcd: 'cache', kubectl: 'cache' });
});

test('binaries built with a permissive umask are made private before they are recorded', async () => {
  const env = cacheEnv();
  const previous = process.umask(0o002);
  try {
    await ensureBinaries({ env, onProgress: () => {} });
  } finally {
    process.umask(previous);
  }
  const lookup = lookUpBinaries(env);
  assert.deepEqual(lookup.refused, []);
  assert.equal(lookup.sources.etcd, 'cache');
});
