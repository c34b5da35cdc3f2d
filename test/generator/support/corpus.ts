/**
 * The CRD corpus (real CRDs of 18 projects, kept outside the repository) and the synthetic
 * feature matrix, split into batches without duplicate CRDs (the corpus has several copies of
 * some CRDs, which one kopf-gen run rightly refuses).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { extractCrds } from '../../../generator/input/documents.ts';
import type { CrdDocument } from '../../../generator/input/documents.ts';
import { findInputFiles, readSource } from '../../../generator/input/files.ts';
import { parseYamlStream } from '../../../generator/input/yaml.ts';

/** `KOPF_GEN_CORPUS`, else `shared/corpus` beside the repository (where CI puts it), else the workplace's. */
export const CORPUS = resolve(process.env['KOPF_GEN_CORPUS']
  ?? [join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpus'), '/work/shared/corpus'].find(
    (dir) => existsSync(dir)
  )
  ?? '/work/shared/corpus');

export interface Batch {
  readonly files: string[];
  readonly crds: CrdDocument[];
}

export function corpusFiles(): string[] {
  const crds = join(CORPUS, 'crds');
  const matrix = join(CORPUS, 'synthetic', 'feature-matrix.yaml');
  if (!existsSync(crds) || !existsSync(matrix)) {
    throw new Error(`the CRD corpus is not at ${CORPUS} (crds/, synthetic/feature-matrix.yaml); set KOPF_GEN_CORPUS`);
  }
  return [...findInputFiles([crds], CORPUS).files, matrix];
}

/** Files into as few batches as possible, each without two definitions of one CRD. */
export function batches(files: readonly string[]): Batch[] {
  const result: { names: Set<string>; files: string[]; crds: CrdDocument[] }[] = [];
  for (const file of files) {
    const source = readSource(file, CORPUS);
    const stream = parseYamlStream(source.text, source.display);
    if (stream.errors.length) throw new Error(`${source.display}: ${stream.errors[0]!.message}`);
    const crds = extractCrds(source.display, stream.documents).crds;
    const names = crds.map((c) => crdName(c));
    let batch = result.find((b) => !names.some((n) => b.names.has(n)));
    if (!batch) {
      batch = { names: new Set(), files: [], crds: [] };
      result.push(batch);
    }
    for (const n of names) batch.names.add(n);
    batch.files.push(file);
    batch.crds.push(...crds);
  }
  return result;
}

function crdName(crd: CrdDocument): string {
  const metadata = crd.value['metadata'];
  const name = typeof metadata === 'object' && metadata !== null && !Array.isArray(
    metadata
  ) ? metadata['name'] : undefined;
  return typeof name === 'string' ? name : `${crd.file}#${crd.document}`;
}
