/**
 * Finding the control plane's binaries, in envtest's order so that binaries fetched by
 * `setup-envtest` work as they are: `TEST_ASSET_<NAME>`, then `$KUBEBUILDER_ASSETS/<name>`, then
 * kopf's own cache; missing ones are built into the cache from the Go module proxy.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { buildBinaries, type ProgressReporter } from './building.ts';
import { binaryCacheDir } from './cache.ts';
import { BINARY_NAMES, ETCD_VERSION, KUBERNETES_VERSION, type BinaryName } from './versions.ts';

/** The Go version upstream's go.mod asks for (`go 1.26.0` for Kubernetes 1.36); shown in messages. */
export const GO_MINIMUM = '1.26';

export interface ControlPlaneBinaries {
  apiServer: string;
  etcd: string;
  /** Only needed by people, not by the control plane; may be absent from KUBEBUILDER_ASSETS. */
  kubectl: string | null;
}

export interface BinaryLookup {
  paths: Partial<Record<BinaryName, string>>;
  /** Where each found binary came from, e.g. `TEST_ASSET_ETCD` or `cache`. */
  sources: Partial<Record<BinaryName, string>>;
  missing: BinaryName[];
  /** Explicitly configured locations that hold no executable: errors, never silently built over. */
  problems: string[];
  cacheDir: string;
}

export class BinariesNotFoundError extends Error {
  override name = 'BinariesNotFoundError';
}

/** envtest's variable name: `TEST_ASSET_` + the name upper-cased, non-alphanumerics as `_`. */
export function testAssetVariable(name: BinaryName): string {
  return `TEST_ASSET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function lookUpBinaries(env: NodeJS.ProcessEnv = process.env): BinaryLookup {
  const cacheDir = binaryCacheDir(env);
  const result: BinaryLookup = { paths: {}, sources: {}, missing: [], problems: [], cacheDir };
  const assets = env.KUBEBUILDER_ASSETS;
  for (const name of BINARY_NAMES) {
    const variable = testAssetVariable(name);
    const explicit = env[variable];
    const candidates: [string, string][] = explicit
      ? [[explicit, variable]]
      : [...(assets ? [[join(assets, name), 'KUBEBUILDER_ASSETS'] as [string, string]] : []), [join(cacheDir, name), 'cache']];
    const hit = candidates.find(([path]) => isExecutable(path));
    if (hit) {
      result.paths[name] = hit[0];
      result.sources[name] = hit[1];
    } else if (explicit) {
      result.problems.push(`${variable}=${explicit} is not an executable file`);
    } else if (assets && name !== 'kubectl' && !isExecutable(join(cacheDir, name))) {
      result.problems.push(`KUBEBUILDER_ASSETS=${assets} holds no executable ${name}`);
    } else {
      result.missing.push(name);
    }
  }
  return result;
}

/** The installed Go's version line, or null without Go on PATH. */
export function findGo(env: NodeJS.ProcessEnv = process.env): string | null {
  const result = spawnSync('go', ['version'], { env, encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  return result.stdout.trim();
}

export function missingGoMessage(cacheDir: string, missing: readonly BinaryName[]): string {
  return [
    `The local control plane needs ${missing.join(', ')} (Kubernetes v${KUBERNETES_VERSION}, etcd v${ETCD_VERSION});`,
    `they are not in ${cacheDir}, and there is no \`go\` on PATH to build them. Do one of:`,
    `  - install Go >= ${GO_MINIMUM} (https://go.dev/dl/) and put \`go\` on PATH: they are then built from the Go`,
    `    module proxy into that folder (about 7 minutes on 2 cores, once);`,
    `  - set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl`,
    `    (for example from \`setup-envtest use ${KUBERNETES_VERSION.split('.').slice(0, 2).join('.')}.x -p path\`);`,
    `  - set ${missing.map(testAssetVariable).join(' and ')} to the binaries' paths.`,
  ].join('\n');
}

export interface EnsureOptions {
  env?: NodeJS.ProcessEnv;
  onProgress?: ProgressReporter;
  /** Build kubectl too when it is missing and Go is there (the control plane itself does not need it). */
  requireKubectl?: boolean;
  signal?: AbortSignal;
}

/** Finds the binaries, building the missing ones into the cache; throws a message saying what to do. */
export async function ensureBinaries(options: EnsureOptions = {}): Promise<ControlPlaneBinaries> {
  const env = options.env ?? process.env;
  let lookup = lookUpBinaries(env);
  if (lookup.problems.length) throw new BinariesNotFoundError(lookup.problems.join('\n'));
  const required = lookup.missing.filter((name) => name !== 'kubectl');
  const wanted = options.requireKubectl ? lookup.missing : required;
  if (wanted.length) {
    const hasGo = findGo(env) !== null;
    if (!hasGo && required.length) throw new BinariesNotFoundError(missingGoMessage(lookup.cacheDir, required));
    // Without Go, a missing kubectl is no reason to fail: the control plane runs without it.
    if (hasGo) {
      await buildBinaries(wanted, { env, onProgress: options.onProgress, signal: options.signal });
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
