/**
 * Every file kopf-gen writes is inside the folder it writes to (`--out`, `--stubs`): paths are
 * made of names from the CRDs, and a name that climbs out (`..`) or is itself a path must be
 * refused before anything is written, whatever checked the names before.
 */
import { isAbsolute, join, relative } from 'node:path';
import { shown } from './diagnostics/diagnostic.ts';

/** The manifest of what kopf-gen wrote, at the top of `--out` (output/manifest.ts): no CRD may claim its name. */
export const MANIFEST_FILE = 'kopf-gen.manifest.json';

/** A path kopf-gen will not write: it would leave its folder, or clash with another file. */
export class UnsafePathError extends Error {
  readonly paths: readonly string[];
  constructor(folder: string, problems: readonly string[]) {
    super(`refusing to write in ${folder}; nothing written:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'UnsafePathError';
    this.paths = problems;
  }
}

/** One name of a path: not empty, not `.` or `..`, no separator of any platform, no NUL. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && !/^[A-Za-z]:/.test(name);
}

/**
 * Problems with relative `/`-separated paths to be written under one folder: escapes, and a file
 * where a folder must be.
 */
export function unsafePaths(paths: Iterable<string>): string[] {
  const all = [...paths];
  const problems: string[] = [];
  const folders = new Set<string>();
  for (const path of all) {
    const names = path.split('/');
    if (!names.every(isPlainName)) {
      problems.push(`${shown(path)}: not a plain relative path`);
      continue;
    }
    for (let i = 1; i < names.length; i++) folders.add(names.slice(0, i).join('/'));
  }
  for (const path of all) if (folders.has(path)) problems.push(`${shown(path)}: both a file and a folder`);
  return problems;
}

/** `folder/<names…>`, or UnsafePathError when a name is not a plain name. */
export function pathInside(folder: string, ...names: string[]): string {
  const bad = names.filter((n) => !isPlainName(n));
  if (bad.length) throw new UnsafePathError(folder, bad.map((n) => `${shown(n)}: not a plain name`));
  return join(folder, ...names);
}

/** Whether `path` is below `folder` (not the folder itself), both absolute. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return !!rel && !rel.startsWith('..') && !isAbsolute(rel);
}
