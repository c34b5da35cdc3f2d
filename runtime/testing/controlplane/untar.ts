/**
 * Taking a few named files out of a gzipped tar archive, in Node (no `tar` on PATH needed).
 *
 * The archive comes from the network and is treated as hostile. A path in it never becomes a path
 * on disk: an entry is taken only when it is a regular file whose last path segment is one of the
 * names asked for, and it is written under that name into the given folder, created exclusively
 * (nothing there is replaced or followed). Links, folders, devices and every other entry are read
 * past, never made; a name that comes twice, a header whose checksum is wrong, an archive that
 * ends early or unpacks to more than a limit is refused.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;
/** A long name or a pax record longer than this is no archive of binaries. */
const MAX_RECORD = 64 * 1024;

export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

export interface ExtractOptions {
  /** The most bytes the archive may unpack to, all entries counted (a gzip bomb stops there). */
  maxBytes: number;
}

/** Writes the wanted files found in the archive into `into`; returns the names written. */
export async function extractFiles(
  archive: string, into: string, wanted: ReadonlySet<string>, options: ExtractOptions,
): Promise<string[]> {
  const stream = createReadStream(archive).pipe(createGunzip());
  const reader = new BlockReader(stream, options.maxBytes);
  const written: string[] = [];
  try {
    let header = await nextHeader(reader);
    while (header) {
      const name = lastSegment(header.path);
      if (header.regular && wanted.has(name)) {
        if (written.includes(name)) throw new ArchiveError(`the archive holds ${name} twice`);
        await writeExclusive(join(into, name), reader.take(header.size));
        written.push(name);
      } else {
        await reader.skip(header.size);
      }
      await reader.skip(padding(header.size));
      header = await nextHeader(reader);
    }
  } finally {
    stream.destroy();
  }
  return written;
}

interface Header {
  path: string;
  size: number;
  regular: boolean;
}

/**
 * The next file entry, with what GNU long-name (`L`) and pax (`x`) records before it say about it;
 * null at the end of the archive (a zero block).
 */
async function nextHeader(reader: BlockReader): Promise<Header | null> {
  let longPath: string | undefined;
  let pax: Record<string, string> = {};
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (!block) throw new ArchiveError('the archive ends without its end-of-archive blocks');
    if (block.every((byte) => byte === 0)) return null;
    verifyChecksum(block);
    const type = String.fromCharCode(block[156]);
    if (type === 'L' || type === 'x' || type === 'g') {
      const size = headerSize(block);
      const body = size <= MAX_RECORD ? await reader.exactly(size) : null;
      if (!body) throw new ArchiveError(`a damaged archive (a "${type}" record of ${size} bytes)`);
      await reader.skip(padding(size));
      if (type === 'L') longPath = text(body, 0, body.length);
      if (type === 'x') pax = paxRecords(body);
      continue;
    }
    const path = pax.path ?? longPath ?? headerPath(block);
    const size = pax.size !== undefined ? decimal(pax.size) : headerSize(block);
    return { path, size, regular: type === '0' || type === '\0' };
  }
}

function verifyChecksum(block: Buffer): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  if (octal(block, 148, 8) !== sum) {
    throw new ArchiveError('not a tar archive, or a damaged one (a header checksum is wrong)');
  }
}

function headerPath(block: Buffer): string {
  const name = text(block, 0, 100);
  const ustar = block.toString('latin1', 257, 262) === 'ustar';
  const prefix = ustar ? text(block, 345, 155) : '';
  return prefix ? `${prefix}/${name}` : name;
}

/** Octal, or base-256 (big-endian, first byte's top bit set) for sizes beyond 8 GiB. */
function headerSize(block: Buffer): number {
  if (!(block[124] & 0x80)) return octal(block, 124, 12);
  let size = block[124] & 0x7f;
  for (let i = 125; i < 136; i++) size = size * 256 + block[i];
  return size;
}

function octal(block: Buffer, offset: number, length: number): number {
  const digits = text(block, offset, length).trim();
  if (!/^[0-7]*$/.test(digits)) throw new ArchiveError('not a tar archive (a header field is not a number)');
  return digits ? parseInt(digits, 8) : 0;
}

function decimal(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new ArchiveError(`a pax size that is not a number: ${value.slice(0, 20)}`);
  return Number(value);
}

function text(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.toString('utf8', 0, end < 0 ? length : end);
}

/** `<length> <key>=<value>\n` records. */
function paxRecords(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const space = body.indexOf(0x20, at);
    const length = space > at ? Number(body.toString('latin1', at, space)) : NaN;
    if (!Number.isInteger(length) || length <= space - at || at + length > body.length) {
      throw new ArchiveError('a damaged pax record');
    }
    const record = body.toString('utf8', space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals > 0) records[record.slice(0, equals)] = record.slice(equals + 1);
    at += length;
  }
  return records;
}

function lastSegment(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? '';
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

async function writeExclusive(path: string, pieces: AsyncIterable<Buffer>): Promise<void> {
  const file = await open(path, 'wx', 0o755);
  try {
    for await (const piece of pieces) await file.write(piece);
  } finally {
    await file.close();
  }
}

/** Exact reads from a stream, counting every byte against a limit. */
class BlockReader {
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #maxBytes: number;
  #buffer: Buffer = Buffer.alloc(0);
  #read = 0;

  constructor(stream: Readable, maxBytes: number) {
    this.#chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.#maxBytes = maxBytes;
  }

  /** Exactly `count` bytes, or null if the stream ends first. */
  async exactly(count: number): Promise<Buffer | null> {
    while (this.#buffer.length < count) {
      if (!(await this.#fill())) return null;
    }
    return this.#consume(count);
  }

  /** The next `count` bytes, piece by piece as they come. */
  async *take(count: number): AsyncGenerator<Buffer> {
    let left = count;
    while (left > 0) {
      if (!this.#buffer.length && !(await this.#fill())) throw new ArchiveError('the archive ends inside an entry');
      const piece = this.#consume(Math.min(left, this.#buffer.length));
      left -= piece.length;
      yield piece;
    }
  }

  async skip(count: number): Promise<void> {
    const pieces = this.take(count);
    while (!(await pieces.next()).done);
  }

  #consume(count: number): Buffer {
    const piece = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return piece;
  }

  async #fill(): Promise<boolean> {
    let next: IteratorResult<Buffer>;
    try {
      next = await this.#chunks.next();
    } catch (error) {
      throw new ArchiveError(`not a gzipped archive, or a damaged one: ${(error as Error).message}`);
    }
    if (next.done) return false;
    this.#read += next.value.length;
    if (this.#read > this.#maxBytes) throw new ArchiveError(`the archive unpacks to more than ${this.#maxBytes} bytes`);
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, next.value]) : next.value;
    return true;
  }
}
