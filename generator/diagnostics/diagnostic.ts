/**
 * Problems found in the input, located by file, document and JSON path, so that a message
 * leads the user to the exact place in a CRD file, whichever of many files it is in.
 */

export type Severity = 'error' | 'warning' | 'note';

/** A step in a JSON path: a key of an object or an index of an array. */
export type PathSegment = string | number;

export interface Location {
  /** The input file as the user named it (relative to the working directory where possible). */
  readonly file: string;
  /** 1-based index of the YAML document in the file; absent for problems with the whole file. */
  readonly document?: number;
  /** Where in the document; empty for the document itself. */
  readonly path?: readonly PathSegment[];
  /** 1-based line and column, when known. */
  readonly line?: number;
  readonly column?: number;
}

export interface Diagnostic extends Location {
  readonly severity: Severity;
  readonly message: string;
}

/** Invalid input: one or more errors, all reported at once. */
export class InputError extends Error {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'InputError';
    this.diagnostics = diagnostics;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `spec.versions[0].schema.openAPIV3Schema.properties["foo.bar"]` — dots for keys, brackets where a key is odd. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Characters that would break a message's line or drive the terminal: shown as escapes. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `crds/a.yaml:12:5: error: document 2, spec.versions[0]: message`, on one line whatever the input held. */
export function formatDiagnostic(d: Diagnostic): string {
  const position = d.line !== undefined ? `:${d.line}${d.column !== undefined ? `:${d.column}` : ''}` : '';
  const where: string[] = [];
  if (d.document !== undefined) where.push(`document ${d.document}`);
  if (d.path && d.path.length) where.push(formatPath(d.path));
  const text = `${d.file}${position}: ${d.severity}: ${where.length ? `${where.join(', ')}: ` : ''}${d.message}`;
  return text.replace(UNPRINTABLE, escapeCharacter);
}

/** Long values are cut in messages: a name is never that long, a hostile value may be megabytes. */
const SHOWN_CHARACTERS = 80;

/**
 * A value from the input for a message: quoted, escaped (it may hold line breaks or terminal escapes),
 * cut when long.
 */
export function shown(value: string): string {
  const cut = value.length > SHOWN_CHARACTERS ? `${value.slice(0, SHOWN_CHARACTERS)}…` : value;
  return JSON.stringify(cut).replace(UNPRINTABLE, escapeCharacter);
}

function escapeCharacter(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `8 MiB`, `9.5 MiB`: sizes in messages about limits. */
export function mebibytes(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}
