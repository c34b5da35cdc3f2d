/**
 * Newline-delimited JSON as it streams: chunks are split on `\n` bytes (never inside a UTF-8
 * sequence, so lines are decoded whole), and a line may span any number of chunks.
 */

/** A line longer than this is a broken stream, not an object (etcd caps objects at 1.5 MiB). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineSplitter {
  readonly #onLine: (line: Buffer) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(onLine: (line: Buffer) => void) {
    this.#onLine = onLine;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#pending.length === 0) {
        this.#onLine(piece);
      } else {
        this.#pending.push(piece);
        const line = Buffer.concat(this.#pending);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#onLine(line);
      }
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > MAX_LINE_BYTES) throw new RangeError(`a line of the stream exceeds ${MAX_LINE_BYTES} bytes`);
    }
  }

  /** The stream ended: a last line without a trailing newline is still a line. */
  end(): void {
    if (this.#pending.length === 0) return;
    const line = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#onLine(line);
  }
}

/** Parses one line as JSON; blank lines (keep-alive newlines) give `undefined`. */
export function parseLine(line: Buffer): unknown {
  const text = line.toString('utf8');
  if (!text.trim()) return undefined;
  return JSON.parse(text);
}
