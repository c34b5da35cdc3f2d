/**
 * Where the new project's `kopf` and `kopf-gen` come from: the registry (the default), or `--from`
 * a checkout of the framework's repository, or a folder of packed tarballs (`npm pack`), which
 * works offline. Tarballs are copied into the project (`vendor/`), so that it stays whole when
 * moved, and an image can be built from it.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface DependencySource {
  /** How the project's package.json names each package: a version range or a `file:` specifier. */
  readonly kopf: string;
  readonly kopfGen: string;
  /** Tarballs to copy into the project's `vendor/`: file name → path. */
  readonly vendored: ReadonlyMap<string, string>;
  /** For messages: `the registry`, `the checkout at …`, `the tarballs in …`. */
  readonly description: string;
}

export const VENDOR_DIR = 'vendor';

/**
 * From the registry, exactly the `kopf` and `kopf-gen` released with this package (the three are
 * released together, at one version): a project starts on the runtime its scaffold was tested with.
 */
export function dependencySource(from: string | undefined, ownVersion: string): DependencySource {
  if (from === undefined) {
    return { kopf: ownVersion, kopfGen: ownVersion, vendored: new Map(), description: 'the registry' };
  }
  const dir = resolve(from);
  if (isCheckout(dir)) {
    return {
      kopf: `file:${join(dir, 'runtime')}`, kopfGen: `file:${join(dir, 'generator')}`,
      vendored: new Map(), description: `the checkout at ${dir}`,
    };
  }
  const tarballs = existsSync(dir) ? readdirSync(dir) : [];
  const kopf = newest(tarballs.filter((f) => /^kopf-\d[^/]*\.tgz$/.test(f)));
  const kopfGen = newest(tarballs.filter((f) => /^kopf-gen-\d[^/]*\.tgz$/.test(f)));
  if (!kopf || !kopfGen) {
    throw new Error(`--from ${from}: neither a checkout of kopf (runtime/ and generator/) nor a folder with `
      + 'kopf-<version>.tgz and kopf-gen-<version>.tgz (from `npm pack`)');
  }
  return {
    kopf: `file:${VENDOR_DIR}/${kopf}`, kopfGen: `file:${VENDOR_DIR}/${kopfGen}`,
    vendored: new Map([[kopf, join(dir, kopf)], [kopfGen, join(dir, kopfGen)]]),
    description: `the tarballs in ${dir}`,
  };
}

export function copyVendored(source: DependencySource, projectDir: string): void {
  if (!source.vendored.size) return;
  mkdirSync(join(projectDir, VENDOR_DIR), { recursive: true });
  for (const [name, path] of source.vendored) copyFileSync(path, join(projectDir, VENDOR_DIR, name));
}

function isCheckout(dir: string): boolean {
  const nameOf = (pkg: string): unknown => {
    const path = join(dir, pkg, 'package.json');
    return existsSync(path) && (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name;
  };
  return nameOf('runtime') === 'kopf' && nameOf('generator') === 'kopf-gen';
}

/** The highest version among tarballs of one package (`npm pack` names them `<name>-<version>.tgz`). */
function newest(files: readonly string[]): string | undefined {
  const version = (f: string) => (/-(\d+)\.(\d+)\.(\d+)/.exec(f) ?? []).slice(1).map(Number);
  return [...files].sort((a, b) => {
    const [x, y] = [version(a), version(b)];
    return (x[0] - y[0]) || (x[1] - y[1]) || (x[2] - y[2]);
  }).pop();
}
