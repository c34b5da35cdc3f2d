/**
 * The CRD corpus, cut into batches that each tool can take in one run: the corpus holds the same
 * CRD more than once (argo's minimal and full variants, an older tekton, kopium's fixtures), and
 * a generator run rightly refuses or overwrites two definitions of one `<plural>.<group>`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const CORPUS_DIR = '/work/shared/corpus/crds';

export interface CorpusFile {
  readonly path: string;
  readonly bytes: number;
  /** `<plural>.<group>` of every CRD in the file. */
  readonly crds: readonly string[];
}

export function listCorpus(dir: string = CORPUS_DIR): CorpusFile[] {
  return yamlFiles(dir).map((path) => {
    const text = readFileSync(path, 'utf8');
    return { path, bytes: Buffer.byteLength(text), crds: crdNames(text) };
  }).filter((f) => f.crds.length > 0);
}

/** First-fit: each file goes to the first batch that has none of its CRDs yet. Deterministic. */
export function batchesWithoutDuplicates(files: readonly CorpusFile[]): CorpusFile[][] {
  const batches: { files: CorpusFile[]; names: Set<string> }[] = [];
  for (const file of files) {
    let batch = batches.find((b) => file.crds.every((n) => !b.names.has(n)));
    if (!batch) batches.push(batch = { files: [], names: new Set() });
    batch.files.push(file);
    for (const name of file.crds) batch.names.add(name);
  }
  return batches.map((b) => b.files);
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

function crdNames(text: string): string[] {
  const names: string[] = [];
  const visit = (doc: unknown): void => {
    if (!isRecord(doc)) return;
    if (doc.kind === 'List' && Array.isArray(doc.items)) doc.items.forEach(visit);
    if (doc.kind !== 'CustomResourceDefinition' || !isRecord(doc.spec) || !isRecord(doc.spec.names)) return;
    names.push(`${String(doc.spec.names.plural)}.${String(doc.spec.group)}`);
  };
  for (const doc of parseAllDocuments(text)) visit(doc.toJS());
  return names;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
