/**
 * An incremental parser of HTTP/1.1 responses, one at a time on one connection (no pipelining).
 * It finds the head, then frames the body by `Content-Length`, by chunks, or by the connection's
 * end, and hands out body bytes as views of the chunks it is given, without copies: valid only
 * during the call, since a chunk's memory may be reused once `push()` returns (nothing of it is
 * kept here either).
 */

export interface ResponseHead {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
}

export interface ParserEvents {
  head(head: ResponseHead): void;
  data(chunk: Buffer): void;
  /** The response is complete; `reusable` if the connection may carry another exchange. */
  end(reusable: boolean): void;
}

/** The server sent something that is not HTTP/1.1 as this client speaks it. */
export class ProtocolError extends Error {
  readonly code = 'EPROTO';
  constructor(detail: string) {
    super(`malformed HTTP response: ${detail}`);
    this.name = 'ProtocolError';
  }
}

/** A connection closed under a response (Node's own words and code for it). */
export function hangUpError(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

const MAX_HEAD = 64 * 1024;
const MAX_SIZE_LINE = 1024;
const CRLF = 0x0a0d; // '\r\n' read as a little-endian 16-bit word
const HEAD_END = Buffer.from('\r\n\r\n');

/** The parser's states (numbers rather than an enum: type stripping erases types only). */
const State = {
  Idle: 0,
  Head: 1,
  Length: 2,
  ChunkSize: 3,
  ChunkData: 4,
  ChunkEnd: 5,
  Trailer: 6,
  UntilClose: 7,
  Done: 8,
} as const;
type State = (typeof State)[keyof typeof State];

export class ResponseParser {
  readonly #events: ParserEvents;
  #state: State = State.Idle;
  #bodyless = false;
  #keepAlive = true;
  #remaining = 0;
  /** The head's bytes so far, or a chunk-size or trailer line split across chunks. */
  #pending: Buffer | undefined;

  constructor(events: ParserEvents) {
    this.#events = events;
  }

  /** Expects the response to a request just sent; a HEAD request's response has no body. */
  expect(method: string): void {
    this.#state = State.Head;
    this.#bodyless = method === 'HEAD';
    this.#pending = undefined;
  }

  /** True between `expect()` and the response's end. */
  get busy(): boolean {
    return this.#state !== State.Idle && this.#state !== State.Done;
  }

  /** Bytes from the socket. Throws `ProtocolError`; the connection is then beyond repair. */
  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.#state) {
        case State.Idle:
        case State.Done:
          throw new ProtocolError('bytes arrived while no request was waiting');
        case State.Head:
          at = this.#head(chunk, at);
          break;
        case State.Length:
        case State.ChunkData: {
          // The body's bytes, or a chunk's: as much as this socket chunk holds.
          const n = Math.min(this.#remaining, chunk.length - at);
          this.#events.data(chunk.subarray(at, at + n));
          at += n;
          this.#remaining -= n;
          if (this.#remaining > 0) break;
          if (this.#state === State.Length) {
            this.#finish();
          } else {
            this.#state = State.ChunkEnd;
            this.#remaining = 2;
          }
          break;
        }
        case State.UntilClose:
          this.#events.data(at === 0 ? chunk : chunk.subarray(at));
          at = chunk.length;
          break;
        case State.ChunkSize:
          at = this.#chunkSize(chunk, at);
          break;
        case State.ChunkEnd:
          // The CRLF after a chunk's data, possibly split between two socket chunks.
          if (chunk[at] !== (this.#remaining === 2 ? 0x0d : 0x0a))
            throw new ProtocolError('a chunk is not followed by CRLF');
          at++;
          if (--this.#remaining === 0) this.#state = State.ChunkSize;
          break;
        case State.Trailer:
          at = this.#trailer(chunk, at);
          break;
      }
    }
  }

  /** The server closed the connection: the end of a body framed by it, else a response cut short. */
  close(): Error | undefined {
    if (this.#state === State.UntilClose) {
      this.#state = State.Done;
      this.#events.end(false);
      return undefined;
    }
    if (!this.busy) return undefined;
    return hangUpError();
  }

  #head(chunk: Buffer, at: number): number {
    let bytes = at === 0 ? chunk : chunk.subarray(at);
    const before = this.#pending?.length ?? 0;
    if (this.#pending) bytes = Buffer.concat([this.#pending, bytes]);
    const end = bytes.indexOf(HEAD_END, Math.max(0, before - 3));
    if (end < 0) {
      if (bytes.length > MAX_HEAD) throw new ProtocolError(`a head longer than ${MAX_HEAD} bytes`);
      this.#pending = this.#pending ? bytes : Buffer.from(bytes);
      return chunk.length;
    }
    this.#pending = undefined;
    const consumed = at + end + 4 - before;
    const { head, framing } = parseHead(bytes.toString('latin1', 0, end));
    if (head.status < 200) return consumed; // 1xx: the real response follows
    this.#keepAlive = !/(?:^|,)\s*close\s*(?:,|$)/i.test(framing.connection ?? '');
    this.#events.head(head);
    this.#frame(head.status, framing);
    return consumed;
  }

  #frame(status: number, framing: Framing): void {
    if (this.#bodyless || status === 204 || status === 304) return this.#finish();
    const encoding = framing.transferEncoding;
    if (encoding !== undefined) {
      if (!/(?:^|,)\s*chunked\s*$/i.test(encoding)) {
        this.#keepAlive = false;
        this.#state = State.UntilClose;
        return;
      }
      this.#state = State.ChunkSize;
      return;
    }
    const length = framing.contentLength;
    if (length !== undefined) {
      if (!/^\d+$/.test(length)) throw new ProtocolError(`Content-Length: ${length}`);
      this.#remaining = Number(length);
      if (this.#remaining === 0) return this.#finish();
      this.#state = State.Length;
      return;
    }
    this.#keepAlive = false;
    this.#state = State.UntilClose;
  }

  /** Reads a line ending in CRLF, possibly split across chunks; undefined until it is whole. */
  #line(chunk: Buffer, at: number): { line: string; next: number } | undefined {
    const lf = chunk.indexOf(0x0a, at);
    if (lf < 0) {
      const rest = chunk.subarray(at);
      this.#pending = this.#pending ? Buffer.concat([this.#pending, rest]) : Buffer.from(rest);
      if (this.#pending.length > MAX_SIZE_LINE) throw new ProtocolError('a chunk-size line too long');
      return undefined;
    }
    let bytes = chunk.subarray(at, lf + 1);
    if (this.#pending) {
      bytes = Buffer.concat([this.#pending, bytes]);
      this.#pending = undefined;
    }
    if (bytes.length < 2 || bytes.readUInt16LE(bytes.length - 2) !== CRLF)
      throw new ProtocolError('a line not ended by CRLF');
    return { line: bytes.toString('latin1', 0, bytes.length - 2), next: lf + 1 };
  }

  #chunkSize(chunk: Buffer, at: number): number {
    const read = this.#line(chunk, at);
    if (!read) return chunk.length;
    const hex = read.line.split(';', 1)[0]!.trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new ProtocolError(`a chunk size of ${JSON.stringify(hex)}`);
    const size = parseInt(hex, 16);
    if (size === 0) {
      this.#state = State.Trailer;
    } else {
      this.#state = State.ChunkData;
      this.#remaining = size;
    }
    return read.next;
  }

  #trailer(chunk: Buffer, at: number): number {
    const read = this.#line(chunk, at);
    if (!read) return chunk.length;
    if (read.line === '') this.#finish();
    return read.next;
  }

  #finish(): void {
    this.#state = State.Done;
    this.#events.end(this.#keepAlive);
  }
}

/** What the parser needs of the headers to frame the body. */
interface Framing {
  contentLength?: string;
  transferEncoding?: string;
  connection?: string;
}

/**
 * A response's status and headers. The headers are made into a record on first use: most
 * responses are read for their status and body only, and turning every header of every response
 * into a lower-case key was a visible share of a request's instructions.
 */
class ParsedHead implements ResponseHead {
  readonly status: number;
  readonly #lines: string[];
  #headers: Record<string, string> | undefined;

  constructor(status: number, lines: string[]) {
    this.status = status;
    this.#lines = lines;
  }

  get headers(): Record<string, string> {
    return (this.#headers ??= headersOf(this.#lines));
  }
}

/** Lengths of the names that frame a body: `connection`, `content-length`, `transfer-encoding`. */
const FRAMING_NAME_LENGTHS = new Set([10, 14, 17]);

function parseHead(text: string): { head: ResponseHead; framing: Framing } {
  const lines = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!);
  if (!match) throw new ProtocolError(`a status line of ${JSON.stringify(lines[0]!.slice(0, 100))}`);
  const framing: Framing = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ProtocolError(`a header line of ${JSON.stringify(line.slice(0, 100))}`);
    if (!FRAMING_NAME_LENGTHS.has(colon)) continue;
    const name = line.slice(0, colon).toLowerCase();
    const key = name === 'content-length' ? 'contentLength' : name === 'transfer-encoding' ? 'transferEncoding'
      : name === 'connection' ? 'connection' : undefined;
    if (key !== undefined) append(framing, key, line.slice(colon + 1).trim());
  }
  return { head: new ParsedHead(Number(match[1]), lines), framing };
}

/** The header lines (after the status line) as a record: names in lower case, repeated ones joined. */
function headersOf(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    append(headers, line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Adds a header's value; a repeated header's values are joined with `, `. */
function append<K extends string>(record: Partial<Record<K, string>>, key: K, value: string): void {
  const before = record[key];
  record[key] = before === undefined ? value : `${before}, ${value}`;
}
