/**
 * Newline-delimited JSON as it streams: chunks are split on `\n` bytes (never inside a UTF-8
 * sequence, so lines are decoded whole), and a line may span any number of chunks. A line within
 * one chunk, the common case, is decoded straight from the chunk, without a view of it per line.
 */

/** A line longer than this is a broken stream, not an object (etcd caps objects at 1.5 MiB). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineSplitter {
  readonly #onLine: (line: string) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const from = start;
      start = nl + 1;
      if (this.#pending.length === 0) {
        this.#onLine(chunk.toString('utf8', from, nl));
      } else {
        this.#pending.push(chunk.subarray(from, nl));
        this.#flush();
      }
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > MAX_LINE_BYTES)
        throw new RangeError(`a line of the stream exceeds ${MAX_LINE_BYTES} bytes`);
    }
  }

  /** The stream ended: a last line without a trailing newline is still a line. */
  end(): void {
    if (this.#pending.length !== 0) this.#flush();
  }

  #flush(): void {
    const line = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#onLine(line.toString('utf8'));
  }
}

/** Parses one line as JSON; blank lines (keep-alive newlines) give `undefined`. */
export function parseLine(line: string): unknown {
  return line.trim() ? JSON.parse(line) : undefined;
}
