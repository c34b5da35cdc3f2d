/**
 * Input paths to the CRD files they name: files as given, folders searched for YAML and JSON
 * files. Sorted, so that the output never depends on the order of the file system.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { mebibytes } from '../diagnostics/diagnostic.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';

export interface SourceFile {
  readonly absolute: string;
  /** The path for messages: relative to the working directory when inside it, with `/`. */
  readonly display: string;
  readonly text: string;
  readonly bytes: number;
  readonly sha256: string;
}

const EXTENSIONS = /\.(ya?ml|json)$/i;

/**
 * The largest file read: several documents of the largest size a CRD can have (see yaml.ts),
 * read in well under a minute. Larger sets of CRDs go in several files, or a folder.
 */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

export function findInputFiles(paths: readonly string[], cwd: string): { files: string[]; errors: Diagnostic[] } {
  const found = new Set<string>();
  const errors: Diagnostic[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let stat;
    try {
      stat = statSync(absolute);
    } catch {
      errors.push({ severity: 'error', file: displayPath(absolute, cwd), message: 'no such file or folder' });
      continue;
    }
    if (stat.isDirectory()) {
      const before = found.size;
      for (const file of walk(absolute)) found.add(file);
      if (found.size === before)
        errors.push(
          {
            severity: 'error',
            file: displayPath(absolute, cwd),
            message: 'the folder has no .yaml, .yml or .json files',
          }
        );
    } else {
      found.add(absolute);
    }
  }
  return { files: [...found].sort(), errors };
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (EXTENSIONS.test(entry.name)) yield path;
  }
}

/** Why a file is not read: not a regular file (a device or a pipe never ends), or too large. */
export function unreadableInput(absolute: string): string | undefined {
  const stat = statSync(absolute);
  if (!stat.isFile()) return 'not a regular file';
  if (stat.size > MAX_FILE_BYTES) {
    const limit = `kopf-gen reads files of up to ${mebibytes(MAX_FILE_BYTES)}`;
    return `the file is ${mebibytes(stat.size)}; ${limit} (split it, or name a folder of files)`;
  }
  return undefined;
}

export function readSource(absolute: string, cwd: string): SourceFile {
  const buffer = readFileSync(absolute);
  return {
    absolute,
    display: displayPath(absolute, cwd),
    text: buffer.toString('utf8').replace(/^\uFEFF/, ''),
    bytes: buffer.length,
    sha256: createHash('sha256').update(buffer).digest('hex'),
  };
}

export function displayPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
  return shown.split(sep).join('/');
}
