/**
 * The prebuilt binaries of controller-runtime's envtest, as `setup-envtest` finds them: a release
 * index that controller-tools publishes, a YAML file that lists for each Kubernetes version
 * (`releases: {v1.36.2: {…}}`) one archive per platform, `envtest-v<version>-<os>-<arch>.tar.gz`,
 * with its SHA-512 (`hash`, hex) and its address (`selfLink`). An archive holds kube-apiserver,
 * etcd and kubectl (under `controller-tools/envtest/`).
 *
 * The index is read from the network, so it is hostile like the archives: only stable versions of
 * the pinned Kubernetes minor are taken, only an http(s) address, only a well-formed hash. The
 * pinned version is preferred; when the index does not list it, the newest patch of its minor.
 */
import { readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { isMapping } from '../../structs/diffs.ts';
import { controlPlaneCacheDir } from './cache.ts';
import { firstVerified, type VerifiedFolder } from './verified.ts';
import { KUBERNETES_VERSION } from './versions.ts';

/** The index `setup-envtest` reads by default. */
export const DEFAULT_INDEX_URL =
  'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';
/** Another index (a mirror, or a local one in tests), or `off` for no downloads at all. */
export const INDEX_VARIABLE = 'KOPF_ENVTEST_INDEX';

export class DownloadError extends Error {
  override name = 'DownloadError';
}

export interface EnvtestPlatform {
  os: string;
  arch: string;
}

export interface EnvtestArchive {
  /** The Kubernetes version, without the `v`. */
  version: string;
  name: string;
  url: string;
  /** Lower-case hex. */
  sha512: string;
}

/** The index to download from; null when downloads are off. */
export function indexUrl(env: NodeJS.ProcessEnv = process.env): string | null {
  const value = env[INDEX_VARIABLE]?.trim();
  if (value === 'off') return null;
  return value || DEFAULT_INDEX_URL;
}

/** Envtest's names for this platform (Go's); null where it publishes no binaries that run here. */
export function envtestPlatform(
  platform: string = process.platform, arch: string = process.arch,
): EnvtestPlatform | null {
  const os = ({ linux: 'linux', darwin: 'darwin' } as Record<string, string>)[platform];
  const goArch = ({ x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch];
  return os && goArch ? { os, arch: goArch } : null;
}

export function envtestFolderName(version: string, platform: EnvtestPlatform): string {
  return `envtest-v${version}-${platform.os}-${platform.arch}`;
}

/** The archive to download for this platform, chosen from the index's text. */
export function chooseArchive(indexText: string, indexAddress: string, platform: EnvtestPlatform): EnvtestArchive {
  const releases = releasesOf(indexText);
  const candidates: EnvtestArchive[] = [];
  for (const [key, archives] of Object.entries(releases)) {
    const version = /^v(\d+\.\d+\.\d+)$/.exec(key)?.[1];
    if (!version || !sameMinor(version, KUBERNETES_VERSION) || !isMapping(archives)) continue;
    const name = `envtest-v${version}-${platform.os}-${platform.arch}.tar.gz`;
    const entry = archives[name];
    if (!isMapping(entry)) continue;
    candidates.push(validArchive(version, name, entry, indexAddress));
  }
  const best = candidates.find((archive) => archive.version === KUBERNETES_VERSION)
    ?? candidates.sort((a, b) => patchOf(b.version) - patchOf(a.version))[0];
  if (!best) {
    const minor = KUBERNETES_VERSION.split('.').slice(0, 2).join('.');
    throw new DownloadError(`the index lists no Kubernetes ${minor}.x for ${platform.os}/${platform.arch}`);
  }
  return best;
}

/**
 * The downloaded binaries in the cache for the pinned minor and this platform: the newest version
 * whose folder passes the checks of `verified.ts`, or null; and why the folders passed over were
 * refused (an unverified folder never wins by a newer version).
 */
export function downloadedBinaries(
  env: NodeJS.ProcessEnv = process.env, platform: EnvtestPlatform | null = envtestPlatform(),
): { found: { version: string; folder: VerifiedFolder } | null; refused: string[] } {
  const refused: string[] = [];
  if (!platform) return { found: null, refused };
  const root = controlPlaneCacheDir(env);
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return { found: null, refused };
  }
  const versions = new Set(entries.map((entry) => {
    const version = /^envtest-v(\d+\.\d+\.\d+)-([^.]+)(?:\.\d+)?$/.exec(entry);
    const ours = version?.[2] === `${platform.os}-${platform.arch}` && sameMinor(version[1], KUBERNETES_VERSION);
    return ours ? version[1] : null;
  }).filter((version) => version !== null));
  for (const version of [...versions].sort((a, b) => patchOf(b) - patchOf(a))) {
    const verified = firstVerified(root, envtestFolderName(version, platform));
    refused.push(...verified.refused);
    if (verified.folder) return { found: { version, folder: verified.folder }, refused };
  }
  return { found: null, refused };
}

function releasesOf(text: string): Record<string, unknown> {
  let index: unknown;
  try {
    index = parse(text);
  } catch (error) {
    throw new DownloadError(`the index is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const releases = isMapping(index) ? index.releases : undefined;
  if (!isMapping(releases)) throw new DownloadError('the index has no `releases`');
  return releases;
}

function validArchive(
  version: string, name: string, entry: Record<string, unknown>, indexAddress: string,
): EnvtestArchive {
  const { hash, selfLink } = entry;
  if (typeof hash !== 'string' || !/^[0-9a-f]{128}$/i.test(hash)) {
    throw new DownloadError(`the index gives ${name} no SHA-512`);
  }
  let url: URL | undefined;
  try {
    url = typeof selfLink === 'string' ? new URL(selfLink, indexAddress) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new DownloadError(`the index gives ${name} no http(s) address`);
  }
  return { version, name, url: url.href, sha512: hash.toLowerCase() };
}

function sameMinor(a: string, b: string): boolean {
  return a.split('.').slice(0, 2).join('.') === b.split('.').slice(0, 2).join('.');
}

function patchOf(version: string): number {
  return Number(version.split('.')[2]);
}
