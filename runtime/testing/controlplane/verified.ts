/**
 * The control plane's binaries run as the user (as root in a container), so the cache is trusted
 * no further than the rule of `files/ownership.ts` and a record allow. The root, each folder and
 * each binary must be the user's own and writable by no one else; each folder holds `SHA512SUMS`,
 * the SHA-512 of each binary as it was verified when it came (downloaded from an archive whose
 * checksum matched the index, or built here), and a binary is used only while it still has that
 * digest. A folder that fails is refused with a reason and never used, built into or replaced:
 * the binaries come again into a new folder beside it (`<name>.1`, `<name>.2`, …). Folders made
 * before the record existed have none, so they are refused too and their binaries come again.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { notOwnPath } from '../../files/ownership.ts';
import { BINARY_NAMES, type BinaryName } from './versions.ts';

export const RECORD = 'SHA512SUMS';
/** A record of three lines is far smaller: anything bigger is not one. */
const MAX_RECORD_BYTES = 4096;

export type Digests = Partial<Record<BinaryName, string>>;

/** A folder whose binaries are the ones recorded: the paths of those it holds. */
export interface VerifiedFolder {
  dir: string;
  paths: Partial<Record<BinaryName, string>>;
}

/** The SHA-512 of a file (hex), read in pieces so that a big binary is never whole in memory. */
export function sha512Of(path: string): string {
  const hash = createHash('sha512');
  const buffer = Buffer.alloc(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** Why the cache's root must not be used, or `undefined`; an absent root is created, private. */
export function rootRefusal(root: string, uid = process.getuid?.()): string | undefined {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `${root} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  const refused = notOwnPath(root, 'directory', uid);
  return refused && `${root} ${refused}`;
}

/** The folder's binaries if the folder, its record and each binary pass; else why not. */
export function verifyFolder(dir: string, uid = process.getuid?.()): VerifiedFolder | { refused: string } {
  const refuse = (reason: string): { refused: string } => ({ refused: `${dir}: ${reason}` });
  const folder = notOwnPath(dir, 'directory', uid);
  if (folder) return refuse(`the folder ${folder}`);
  const digests = readRecord(dir, uid);
  if (typeof digests === 'string') return refuse(digests);
  const paths: VerifiedFolder['paths'] = {};
  for (const [name, digest] of Object.entries(digests) as [BinaryName, string][]) {
    const path = join(dir, name);
    const file = notOwnPath(path, 'file', uid);
    if (file) return refuse(`${name} ${file}`);
    if (sha512Of(path) !== digest) return refuse(`${name} does not match its recorded SHA-512`);
    paths[name] = path;
  }
  return { dir, paths };
}

/** The record's digests, or why there are none to trust. */
function readRecord(dir: string, uid: number | undefined): Digests | string {
  const path = join(dir, RECORD);
  const refused = notOwnPath(path, 'file', uid);
  if (refused) return `its ${RECORD} ${refused} (a folder made by an older kopf has none)`;
  const buffer = Buffer.alloc(MAX_RECORD_BYTES + 1);
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = readSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
  if (size > MAX_RECORD_BYTES) return `its ${RECORD} is too big`;
  const digests: Digests = {};
  for (const line of buffer.subarray(0, size).toString('utf8').split('\n').filter(Boolean)) {
    const entry = /^([0-9a-f]{128}) {2}(.+)$/.exec(line);
    const name = entry?.[2] as BinaryName | undefined;
    if (!entry || !name || !BINARY_NAMES.includes(name) || digests[name]) return `its ${RECORD} is malformed`;
    digests[name] = entry[1];
  }
  return digests;
}

/**
 * Records the digests of binaries just verified, beside those recorded already (in `sha512sum`'s
 * format, so that `sha512sum -c SHA512SUMS` checks them by hand); replaced whole, by a rename.
 */
export function writeRecord(dir: string, digests: Digests, uid = process.getuid?.()): void {
  const recorded = readRecord(dir, uid);
  const all = { ...(typeof recorded === 'string' ? {} : recorded), ...digests };
  const text = BINARY_NAMES.filter((name) => all[name]).map((name) => `${all[name]}  ${name}\n`).join('');
  const temporary = join(dir, `.${RECORD}.${process.pid}`);
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, join(dir, RECORD));
}

/**
 * The folders of one name in the root: `name` and its successors `name.1`, `name.2`, …, as they
 * come after refused ones; in that order.
 */
export function foldersNamed(root: string, name: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  const generation = (entry: string): number | null => {
    if (entry === name) return 0;
    const suffix = entry.startsWith(`${name}.`) ? entry.slice(name.length + 1) : '';
    return /^[1-9]\d{0,5}$/.test(suffix) ? Number(suffix) : null;
  };
  return entries
    .map((entry) => ({ entry, generation: generation(entry) }))
    .filter((found): found is { entry: string; generation: number } => found.generation !== null)
    .sort((a, b) => a.generation - b.generation)
    .map(({ entry }) => join(root, entry));
}

/** The first verified folder of that name, and the reasons the ones before it were refused. */
export function firstVerified(
  root: string, name: string, uid = process.getuid?.(),
): { folder: VerifiedFolder | null; refused: string[] } {
  const refused: string[] = [];
  for (const dir of foldersNamed(root, name)) {
    const verified = verifyFolder(dir, uid);
    if ('refused' in verified) refused.push(verified.refused);
    else return { folder: verified, refused };
  }
  return { folder: null, refused };
}

/** A name for new binaries: `name` if free, else the next successor that is. */
export function freshFolderName(root: string, name: string): string {
  const taken = new Set(foldersNamed(root, name));
  for (let generation = 0; ; generation++) {
    const dir = join(root, generation ? `${name}.${generation}` : name);
    if (!taken.has(dir)) return dir;
  }
}
