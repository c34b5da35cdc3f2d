/**
 * For the tests of the download: tar.gz archives written here (envtest's layout, or hostile ones),
 * and a local HTTP server on loopback that serves an index in envtest's format and the archives
 * it lists, as the official host does.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface TarEntry {
  name: string;
  /** `0` a file (the default), `1` a hard link, `2` a symlink, `5` a folder, `L` a GNU long name, `x` pax. */
  type?: string;
  /** The content: bytes, or the path of a file to stream in. */
  body?: Buffer | { file: string };
  linkname?: string;
  mode?: number;
}

const BLOCK = 512;

/** Writes a gzipped tar archive of the entries; returns its SHA-512 (hex), as the index gives it. */
export async function writeTarGz(path: string, entries: readonly TarEntry[]): Promise<string> {
  await pipeline(Readable.from(tarBlocks(entries)), createGzip({ level: 1 }), createWriteStream(path));
  return createHash('sha512').update(readFileSync(path)).digest('hex');
}

/** envtest's layout: `controller-tools/envtest/<name>`, after its folders' entries. */
export function envtestEntries(files: Record<string, Buffer | { file: string }>): TarEntry[] {
  return [
    { name: 'controller-tools/', type: '5', mode: 0o755 },
    { name: 'controller-tools/envtest/', type: '5', mode: 0o755 },
    ...Object.entries(files).map(([name, body]) => ({ name: `controller-tools/envtest/${name}`, body, mode: 0o755 })),
  ];
}

async function* tarBlocks(entries: readonly TarEntry[]): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    const body = entry.body;
    const size = body === undefined ? 0 : Buffer.isBuffer(body) ? body.length : statSync(body.file).size;
    yield header(entry, size);
    if (Buffer.isBuffer(body)) yield body;
    else if (body) yield* createReadStream(body.file);
    const rest = (BLOCK - (size % BLOCK)) % BLOCK;
    if (rest) yield Buffer.alloc(rest);
  }
  yield Buffer.alloc(2 * BLOCK);
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const field = (offset: number, length: number, value: string): void => {
    block.write(value.slice(0, length), offset, length, 'utf8');
  };
  const number = (offset: number, length: number, value: number): void => {
    field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  };
  field(0, 100, entry.name);
  number(100, 8, entry.mode ?? 0o644);
  number(108, 8, 0);
  number(116, 8, 0);
  number(124, 12, size);
  number(136, 12, 0);
  field(156, 1, entry.type ?? '0');
  field(157, 100, entry.linkname ?? '');
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

export interface EnvtestServer {
  readonly url: string;
  /** The paths requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Serves the files at their paths (bytes, or a file streamed); 404 for anything else. */
export async function serve(files: ReadonlyMap<string, Buffer | { file: string }>): Promise<EnvtestServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push(path);
    const body = files.get(path);
    if (!body) {
      response.writeHead(404).end('not found');
    } else if (Buffer.isBuffer(body)) {
      response.writeHead(200, { 'content-length': body.length }).end(body);
    } else {
      response.writeHead(200, { 'content-length': statSync(body.file).size });
      createReadStream(body.file).pipe(response);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An index in envtest's format: `releases: {v<version>: {<archive>: {hash, selfLink}}}`. */
export function indexYaml(archives: readonly { version: string; name: string; hash: string; url: string }[]): string {
  const lines = ['releases:'];
  for (const version of new Set(archives.map((archive) => archive.version))) {
    lines.push(`  v${version}:`);
    for (const archive of archives.filter((a) => a.version === version)) {
      lines.push(`    ${archive.name}:`, `      hash: ${archive.hash}`, `      selfLink: ${archive.url}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
