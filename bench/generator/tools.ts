/**
 * Tools the benchmark compares against that are not the repository's dependencies. They are
 * installed on first use into a cache outside the repository, at pinned versions, and never
 * into any package.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CACHE_DIR = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kopf', 'bench-tools');

export interface CachedPackage {
  /** The folder under the cache, named after the main package and its version. */
  readonly folder: string;
  /** `name@version` specs to install together. */
  readonly specs: readonly string[];
  /** A file (relative to the folder) whose presence means the install is complete. */
  readonly marker: string;
}

export const CRD_GENERATE: CachedPackage = {
  folder: 'crd-generate-5.1.0',
  // The generated code imports these at run time, and the type check needs their types.
  specs: [
    '@kubernetes-models/crd-generate@5.1.0',
    '@kubernetes-models/base@5.0.1',
    '@kubernetes-models/apimachinery@2.2.0',
    '@kubernetes-models/validate@4.0.0',
  ],
  marker: 'node_modules/@kubernetes-models/crd-generate/bin/crd-generate.js',
};

export const TYPESCRIPT_7: CachedPackage = {
  folder: 'typescript-7.0.2',
  specs: ['typescript@7.0.2'],
  marker: 'node_modules/typescript/bin/tsc',
};

/** The package's folder in the cache, installing it first if needed. */
export function ensureInstalled(pkg: CachedPackage): string {
  const dir = join(CACHE_DIR, pkg.folder);
  if (existsSync(join(dir, pkg.marker))) return dir;
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`installing ${pkg.specs.join(' ')} into ${dir}\n`);
  const r = spawnSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, ...pkg.specs],
    { stdio: 'inherit' },
  );
  if (r.status !== 0 || !existsSync(join(dir, pkg.marker)))
    throw new Error(`could not install ${pkg.specs.join(' ')} into ${dir}`);
  return dir;
}
