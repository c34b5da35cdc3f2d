/**
 * Finding the control plane's binaries, in envtest's order so that binaries fetched by
 * `setup-envtest` work as they are: `TEST_ASSET_<NAME>`, then `$KUBEBUILDER_ASSETS/<name>`, then
 * kopf's own cache (built, then downloaded; only folders that pass `verified.ts`). Missing ones
 * are downloaded into the cache (envtest's prebuilt binaries, verified), else built there from the
 * Go module proxy where Go is installed, else the error says what to install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { notOwnPath } from '../../files/ownership.ts';
import { isExecutable } from '../executables.ts';
import { buildBinaries } from './building.ts';
import { binaryCacheDir, controlPlaneCacheDir } from './cache.ts';
import { downloadBinaries } from './downloading.ts';
import { DownloadError, downloadedBinaries, indexUrl, INDEX_VARIABLE } from './envtest.ts';
import { PREFIX, defaultReporter, type ProgressReporter } from './progress.ts';
import { firstVerified, type VerifiedFolder } from './verified.ts';
import { BINARY_NAMES, ETCD_VERSION, KUBERNETES_VERSION, cacheFolderName, type BinaryName } from './versions.ts';

/** The Go version upstream's go.mod asks for (`go 1.26.0` for Kubernetes 1.36); shown in messages. */
const GO_MINIMUM = '1.26';

export interface ControlPlaneBinaries {
  apiServer: string;
  etcd: string;
  /** Only needed by people, not by the control plane; may be absent from KUBEBUILDER_ASSETS. */
  kubectl: string | null;
}

export interface BinaryLookup {
  paths: Partial<Record<BinaryName, string>>;
  /** Where each found binary came from: `TEST_ASSET_ETCD`, `KUBEBUILDER_ASSETS`, `cache` (built) or `download`. */
  sources: Partial<Record<BinaryName, string>>;
  /** The Kubernetes version of the downloaded binaries in the cache, if there are any. */
  downloadedVersion: string | null;
  missing: BinaryName[];
  /** Explicitly configured locations that hold no executable: errors, never silently built over. */
  problems: string[];
  /** Folders of the cache not used, each with why: not the user's own, or not as recorded. */
  refused: string[];
  /** Why nothing in the cache is used and nothing is put there, if so. */
  rootRefused: string | null;
  /** The verified folder of built binaries, or where new ones would be built. */
  cacheDir: string;
}

export class BinariesNotFoundError extends Error {
  override name = 'BinariesNotFoundError';
}

/** envtest's variable name: `TEST_ASSET_` + the name upper-cased, non-alphanumerics as `_`. */
export function testAssetVariable(name: BinaryName): string {
  return `TEST_ASSET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function lookUpBinaries(env: NodeJS.ProcessEnv = process.env): BinaryLookup {
  const cache = cachedBinaries(env);
  const result: BinaryLookup = {
    paths: {},
    sources: {},
    downloadedVersion: cache.downloaded?.version ?? null,
    missing: [],
    problems: [],
    refused: cache.refused,
    rootRefused: cache.rootRefused,
    cacheDir: cache.built?.dir ?? binaryCacheDir(env),
  };
  const assets = env.KUBEBUILDER_ASSETS;
  for (const name of BINARY_NAMES) {
    const variable = testAssetVariable(name);
    const explicit = env[variable];
    const built = cache.built?.paths[name];
    const downloaded = cache.downloaded?.folder.paths[name];
    const candidates: [string, string][] = explicit
      ? [[explicit, variable]]
      : [
        ...(assets ? [[join(assets, name), 'KUBEBUILDER_ASSETS'] as [string, string]] : []),
        ...(built ? [[built, 'cache'] as [string, string]] : []),
        ...(downloaded ? [[downloaded, 'download'] as [string, string]] : []),
      ];
    const hit = candidates.find(([path]) => isExecutable(path));
    if (hit) {
      result.paths[name] = hit[0];
      result.sources[name] = hit[1];
    } else if (explicit) {
      result.problems.push(`${variable}=${explicit} is not an executable file`);
    } else if (assets && name !== 'kubectl') {
      result.problems.push(`KUBEBUILDER_ASSETS=${assets} holds no executable ${name}`);
    } else {
      result.missing.push(name);
    }
  }
  return result;
}

/**
 * The verified folders of the cache (built, and the newest downloaded), and what was refused;
 * nothing from a root that is not the user's own.
 */
function cachedBinaries(env: NodeJS.ProcessEnv): {
  built: VerifiedFolder | null;
  downloaded: { version: string; folder: VerifiedFolder } | null;
  refused: string[];
  rootRefused: string | null;
} {
  const root = controlPlaneCacheDir(env);
  const rootRefused = existsSync(root) ? notOwnPath(root, 'directory') : undefined;
  if (rootRefused) return { built: null, downloaded: null, refused: [], rootRefused: `${root} ${rootRefused}` };
  const built = firstVerified(root, cacheFolderName());
  const downloaded = downloadedBinaries(env);
  return {
    built: built.folder,
    downloaded: downloaded.found,
    refused: [...built.refused, ...downloaded.refused],
    rootRefused: null,
  };
}

/** The installed Go's version line, or null without Go on PATH. */
function findGo(env: NodeJS.ProcessEnv = process.env): string | null {
  const result = spawnSync('go', ['version'], { env, encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  return result.stdout.trim();
}

/** What to do when the binaries are nowhere, could not be downloaded, and Go is not there to build them. */
export function missingBinariesMessage(
  env: NodeJS.ProcessEnv, missing: readonly BinaryName[], downloadFailure: string,
): string {
  const root = controlPlaneCacheDir(env);
  const minor = KUBERNETES_VERSION.split('.').slice(0, 2).join('.');
  const index = indexUrl(env);
  const download = index
    ? [`  - let this machine reach ${index}`,
      `    and the archives it lists (on github.com), or set ${INDEX_VARIABLE} to a copy of that index that`,
      '    it can reach: the prebuilt binaries are then downloaded into that folder (about 55 MB, once);']
    : [`  - unset ${INDEX_VARIABLE}=off: the prebuilt binaries are then downloaded into that folder`,
      '    (about 55 MB, once);'];
  return [
    `The local control plane needs ${missing.join(', ')} (Kubernetes ${minor}: the prebuilt binaries of envtest,`,
    `or v${KUBERNETES_VERSION} and etcd v${ETCD_VERSION} built from source). They are not in ${root},`,
    `they could not be downloaded (${downloadFailure}),`,
    'and there is no `go` on PATH to build them. Do one of:',
    ...download,
    `  - install Go >= ${GO_MINIMUM} (https://go.dev/dl/) and put \`go\` on PATH: they are then built from the Go`,
    `    module proxy into that folder (about 7 minutes on 2 cores, once);`,
    `  - set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl`,
    `    (for example from \`setup-envtest use ${minor}.x -p path\`);`,
    `  - set ${missing.map(testAssetVariable).join(' and ')} to the binaries' paths.`,
  ].join('\n');
}

export interface EnsureOptions {
  env?: NodeJS.ProcessEnv;
  onProgress?: ProgressReporter;
  /** Get kubectl too when missing: downloaded, or built where Go is (the control plane runs without it). */
  requireKubectl?: boolean;
  signal?: AbortSignal;
}

/**
 * Finds the binaries; missing ones are downloaded into the cache, else built there; throws a message
 * saying what to do when neither can be done.
 */
export async function ensureBinaries(options: EnsureOptions = {}): Promise<ControlPlaneBinaries> {
  const env = options.env ?? process.env;
  const report = options.onProgress ?? defaultReporter;
  let lookup = lookUpBinaries(env);
  const warned = warnOfRefusals(lookup, report, new Set());
  if (lookup.problems.length) throw new BinariesNotFoundError(lookup.problems.join('\n'));
  if (wanted(lookup, options).length && lookup.rootRefused) {
    throw new BinariesNotFoundError(untrustedRootMessage(lookup.rootRefused));
  }
  if (wanted(lookup, options).length) {
    const downloadFailure = await tryDownload(env, report, options.signal);
    lookup = lookUpBinaries(env);
    warnOfRefusals(lookup, report, warned);
    const required = lookup.missing.filter((name) => name !== 'kubectl');
    const missing = wanted(lookup, options);
    const hasGo = missing.length > 0 && findGo(env) !== null;
    if (required.length && !hasGo) {
      throw new BinariesNotFoundError(missingBinariesMessage(env, required, downloadFailure ?? 'they were incomplete'));
    }
    // Without Go, a missing kubectl is no reason to fail: the control plane runs without it.
    if (hasGo) {
      await buildBinaries(missing, { env, onProgress: report, signal: options.signal });
      lookup = lookUpBinaries(env);
    }
  }
  const { paths } = lookup;
  const found = (name: BinaryName): string => {
    const path = paths[name];
    if (!path) throw new BinariesNotFoundError(`${name} is missing from ${lookup.cacheDir}`);
    return path;
  };
  return { apiServer: found('kube-apiserver'), etcd: found('etcd'), kubectl: paths.kubectl ?? null };
}

/** Says once each folder refused: the binaries then come again, into a new folder beside it. */
function warnOfRefusals(lookup: BinaryLookup, report: ProgressReporter, warned: Set<string>): Set<string> {
  for (const refused of lookup.refused) {
    if (!warned.has(refused)) report(`${PREFIX} warning: not using ${refused}`);
    warned.add(refused);
  }
  return warned;
}

export function untrustedRootMessage(reason: string): string {
  return [
    `The control plane's cache ${reason}: whoever else may write there decides what runs, so nothing`,
    'in it is used and nothing is downloaded or built into it. Make it your own and writable by you alone',
    '(chown, chmod go-w), or set XDG_CACHE_HOME to a folder of yours.',
  ].join('\n');
}

function wanted(lookup: BinaryLookup, options: EnsureOptions): BinaryName[] {
  return options.requireKubectl ? lookup.missing : lookup.missing.filter((name) => name !== 'kubectl');
}

/** Downloads the prebuilt binaries; null when that worked, else why not (said, then built or reported). */
async function tryDownload(
  env: NodeJS.ProcessEnv, report: ProgressReporter, signal?: AbortSignal,
): Promise<string | null> {
  try {
    await downloadBinaries({ env, onProgress: report, signal });
    return null;
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    report(`${PREFIX} could not download the prebuilt binaries: ${error.message}`);
    return error.message;
  }
}
