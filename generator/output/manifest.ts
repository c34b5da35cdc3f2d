/**
 * `<out>/kopf-gen.manifest.json`: what the last run read and wrote, by sha256. It tells a file
 * kopf-gen wrote and nobody touched (safe to replace) from a file edited by hand or put there
 * by someone else (kept unless `--force`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../paths.ts';

export { MANIFEST_FILE };

export interface Manifest {
  readonly generator: string;
  readonly inputs: readonly { readonly path: string; readonly sha256: string }[];
  readonly outputs: { readonly [path: string]: string };
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function manifestText(manifest: Manifest): string {
  const ordered = {
    generator: manifest.generator,
    note: 'Written by kopf-gen on every run: the inputs and outputs of the last run. Do not edit.',
    inputs: manifest.inputs,
    outputs: Object.fromEntries(Object.entries(manifest.outputs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The manifest in an output folder; undefined when there is none or it is not one. */
export function readManifest(outDir: string): Manifest | undefined {
  let text: string;
  try {
    text = readFileSync(join(outDir, MANIFEST_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const outputs = (value as { outputs?: unknown }).outputs;
    if (typeof outputs !== 'object' || outputs === null) return undefined;
    const clean: { [path: string]: string } = {};
    for (const [path, hash] of Object.entries(outputs)) if (typeof hash === 'string') clean[path] = hash;
    const generator = (value as { generator?: unknown }).generator;
    return { generator: typeof generator === 'string' ? generator : '', inputs: [], outputs: clean };
  } catch {
    return undefined;
  }
}
