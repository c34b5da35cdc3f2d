/**
 * Writes the output folder whole or not at all: everything goes to a fresh sibling folder,
 * which then replaces the old one by renames. A reader sees the old output or the new one,
 * never a mix; a failure leaves the old output in place.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UnsafePathError, unsafePaths } from '../paths.ts';
import { exists } from './tree.ts';

export function replaceFolder(outDir: string, files: ReadonlyMap<string, string>): void {
  const problems = unsafePaths(files.keys());
  if (problems.length) throw new UnsafePathError(outDir, problems);
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.${basename(outDir)}.kopf-gen-`));
  try {
    for (const [path, text] of files) {
      const target = join(staging, ...path.split('/'));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    }
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  if (!exists(outDir)) {
    renameSync(staging, outDir);
    return;
  }
  const retired = `${staging}.old`;
  renameSync(outDir, retired);
  try {
    renameSync(staging, outDir);
  } catch (e) {
    renameSync(retired, outDir);
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  rmSync(retired, { recursive: true, force: true });
}
