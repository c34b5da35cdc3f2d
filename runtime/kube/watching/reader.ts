/**
 * Reads a watch response into parsed JSON values through a bounded buffer.
 *
 * The socket is read eagerly into the buffer, and paused only when the buffer is full, i.e. when
 * the consumer is slower than the stream for `bufferSize` events. The trade-off: a paused socket
 * stops the API server's sends; its per-watcher queue (≈100 events) fills and after ~100 ms of
 * blocking it drops the watcher (the API server's watch cache force-closes a watcher it cannot
 * send to). Nothing is lost (the stream is resumed from the last resourceVersion the consumer got,
 * or re-listed if that is compacted), but it costs a reconnect, so the buffer is sized to absorb
 * bursts rather than to pause at the first one.
 * Memory stays bounded by `bufferSize` events per watch.
 *
 * Silence for `inactivityTimeout` ms (no bytes at all; bookmarks arrive every minute) ends the read
 * with an `InactivityError`, so half-open connections do not keep a watcher blind. The clock stops
 * while the socket is paused for backpressure: that silence is ours, not the server's.
 */
import type { Readable } from 'node:stream';
import { Fifo } from '../../structs/fifo.ts';
import { LineSplitter, parseLine } from './lines.ts';

export interface ReaderOptions {
  /** Milliseconds of silence after which the stream is abandoned. */
  inactivityTimeout: number;
  /** Parsed values held before the socket is paused. */
  bufferSize: number;
  signal?: AbortSignal;
}

export class InactivityError extends Error {
  constructor(ms: number) {
    super(`the watch stream was silent for ${ms} ms`);
    this.name = 'InactivityError';
  }
}

/** The stream carried something other than JSON lines: a broken proxy or a truncated line. */
export class MalformedStreamError extends Error {
  constructor(detail: string, cause?: unknown) {
    super(`malformed watch stream: ${detail}`, { cause });
    this.name = 'MalformedStreamError';
  }
}

function prematureClose(): Error {
  return Object.assign(new Error('the watch stream was closed before its end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * Yields the stream's JSON values in order; returns at the stream's end; throws what broke it
 * after yielding everything received before the break. Returns without error if `signal` aborts.
 */
export async function* readJsonLines(
  stream: Readable,
  options: ReaderOptions,
): AsyncGenerator<unknown, void, undefined> {
  const intake = new Intake(stream, options);
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      if (intake.queue.size > 0) {
        yield intake.take();
        continue;
      }
      if (intake.outcome) {
        if (intake.outcome.error !== undefined) throw intake.outcome.error;
        return;
      }
      await intake.arrival();
    }
  } finally {
    intake.close();
  }
}

/**
 * The socket's side of a read: values parsed into a bounded queue as chunks arrive, the socket paused
 * while the queue is full, the inactivity clock, and the outcome once the stream ends or breaks.
 */
class Intake {
  readonly queue = new Fifo<unknown>();
  outcome: { error?: unknown } | undefined;
  readonly #stream: Readable;
  readonly #options: ReaderOptions;
  readonly #splitter: LineSplitter;
  #wake: (() => void) | undefined;
  #paused = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(stream: Readable, options: ReaderOptions) {
    this.#stream = stream;
    this.#options = options;
    this.#splitter = new LineSplitter((line) => this.#parse(line));
    stream.on('data', this.#onData);
    stream.once('end', this.#onEnd);
    stream.once('error', this.#onError);
    stream.once('close', this.#onClose);
    options.signal?.addEventListener('abort', this.#notify, { once: true });
    this.#arm();
  }

  /** The next value; the socket resumes once the consumer has drained half the queue. */
  take(): unknown {
    const value = this.queue.shift();
    if (this.#paused && this.queue.size <= this.#options.bufferSize / 2 && !this.outcome) {
      this.#paused = false;
      this.#arm();
      this.#stream.resume();
    }
    return value;
  }

  /** Settles when a value arrives, the stream ends or breaks, or the signal aborts. */
  arrival(): Promise<void> {
    return new Promise<void>((resolve) => { this.#wake = resolve; });
  }

  close(): void {
    const stream = this.#stream;
    clearTimeout(this.#timer);
    stream.off('data', this.#onData);
    stream.off('end', this.#onEnd);
    stream.off('error', this.#onError);
    stream.off('close', this.#onClose);
    this.#options.signal?.removeEventListener('abort', this.#notify);
    // Errors after this point (the destroy itself) have no one to report to.
    stream.on('error', () => {});
    stream.destroy();
  }

  #parse(line: string): void {
    let value: unknown;
    try {
      value = parseLine(line);
    } catch (e) {
      throw new MalformedStreamError(`not JSON: ${line.slice(0, 200)}`, e);
    }
    if (value !== undefined) this.queue.push(value);
  }

  #notify = (): void => {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  };

  #finish(error?: unknown): void {
    this.outcome ??= error === undefined ? {} : { error };
    clearTimeout(this.#timer);
    this.#notify();
  }

  // Re-armed on every chunk: refreshing one timer is cheaper than a new one per chunk.
  #arm(): void {
    if (this.#timer && !this.outcome) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#finish(new InactivityError(this.#options.inactivityTimeout));
      this.#stream.destroy();
    }, this.#options.inactivityTimeout);
  }

  #onData = (chunk: Buffer): void => {
    if (this.outcome) return;
    try {
      this.#splitter.push(chunk);
    } catch (e) {
      this.#finish(asMalformed(e));
      this.#stream.destroy();
      return;
    }
    if (this.queue.size >= this.#options.bufferSize) {
      this.#paused = true;
      clearTimeout(this.#timer);
      this.#timer = undefined; // a cleared timer cannot be refreshed: the next arm() makes a new one
      this.#stream.pause();
    } else if (!this.#paused) {
      this.#arm();
    }
    this.#notify();
  };

  #onEnd = (): void => {
    try {
      this.#splitter.end();
      this.#finish();
    } catch (e) {
      this.#finish(asMalformed(e));
    }
  };

  #onError = (e: unknown): void => this.#finish(e);
  #onClose = (): void => this.#finish(prematureClose());
}

/** A failure to split or parse the stream, as the error the watch retries. */
function asMalformed(e: unknown): MalformedStreamError {
  if (e instanceof MalformedStreamError) return e;
  return new MalformedStreamError(e instanceof Error ? e.message : String(e), e);
}
