/**
 * The new output against what is on disk: which files are stale (for `--check`), and which
 * files on disk kopf-gen must not replace without `--force` (edited by hand, or not its own).
 */
import { MANIFEST_FILE, readManifest, sha256 } from './manifest.ts';
import { statSync } from 'node:fs';
import { exists, readTree } from './tree.ts';

export interface Comparison {
  /** Files that differ, are missing, or should no longer be there. */
  readonly stale: readonly string[];
  /** Files on disk that kopf-gen did not write as they are now, with why. */
  readonly foreign: readonly { readonly path: string; readonly reason: string }[];
}

export function compareOutput(outDir: string, files: ReadonlyMap<string, string>): Comparison {
  if (exists(outDir) && !statSync(outDir).isDirectory()) {
    return { stale: [...files.keys()], foreign: [{ path: outDir, reason: 'is a file, not a folder' }] };
  }
  const disk = readTree(outDir);
  const manifest = readManifest(outDir);
  const stale: string[] = [];
  const foreign: { path: string; reason: string }[] = [];
  for (const [path, text] of files) {
    const current = disk.get(path);
    if (current === undefined || !current.equals(Buffer.from(text))) stale.push(path);
  }
  for (const [path, content] of disk) {
    if (!files.has(path)) stale.push(path);
    if (path === MANIFEST_FILE) continue;
    const wanted = files.get(path);
    if (wanted !== undefined && content.equals(Buffer.from(wanted))) continue;
    const recorded = manifest?.outputs[path];
    if (recorded === undefined)
      foreign.push({ path, reason: manifest ? 'not written by kopf-gen' : 'the folder has no kopf-gen manifest' });
    else if (recorded !== sha256(content)) foreign.push({ path, reason: 'edited since kopf-gen wrote it' });
  }
  return { stale: [...new Set(stale)].sort(), foreign: foreign.sort((a, b) => (a.path < b.path ? -1 : 1)) };
}
