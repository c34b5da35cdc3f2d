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
  const queue = new Fifo<unknown>();
  let outcome: { error?: unknown } | undefined;
  let wake: (() => void) | undefined;
  let paused = false;
  let timer: NodeJS.Timeout | undefined;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const finish = (error?: unknown) => {
    outcome ??= error === undefined ? {} : { error };
    clearTimeout(timer);
    notify();
  };
  // Re-armed on every chunk: refreshing one timer is cheaper than a new one per chunk.
  const arm = () => {
    if (timer && !outcome) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      finish(new InactivityError(options.inactivityTimeout));
      stream.destroy();
    }, options.inactivityTimeout);
  };
  const splitter = new LineSplitter((line) => {
    let value: unknown;
    try {
      value = parseLine(line);
    } catch (e) {
      throw new MalformedStreamError(`not JSON: ${line.slice(0, 200)}`, e);
    }
    if (value !== undefined) queue.push(value);
  });
  const onData = (chunk: Buffer) => {
    if (outcome) return;
    try {
      splitter.push(chunk);
    } catch (e) {
      finish(
        e instanceof MalformedStreamError ? e : new MalformedStreamError(e instanceof Error ? e.message : String(e), e)
      );
      stream.destroy();
      return;
    }
    if (queue.size >= options.bufferSize) {
      paused = true;
      clearTimeout(timer);
      timer = undefined; // a cleared timer cannot be refreshed: the next arm() makes a new one
      stream.pause();
    } else if (!paused) {
      arm();
    }
    notify();
  };
  const onEnd = () => {
    try {
      splitter.end();
      finish();
    } catch (e) {
      finish(
        e instanceof MalformedStreamError ? e : new MalformedStreamError(e instanceof Error ? e.message : String(e), e)
      );
    }
  };
  const onError = (e: unknown) => finish(e);
  const onClose = () => finish(prematureClose());
  const onAbort = () => notify();

  stream.on('data', onData);
  stream.once('end', onEnd);
  stream.once('error', onError);
  stream.once('close', onClose);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  arm();
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      if (queue.size > 0) {
        const value = queue.shift();
        if (paused && queue.size <= options.bufferSize / 2 && !outcome) {
          paused = false;
          arm();
          stream.resume();
        }
        yield value;
        continue;
      }
      if (outcome) {
        if (outcome.error !== undefined) throw outcome.error;
        return;
      }
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  } finally {
    clearTimeout(timer);
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('error', onError);
    stream.off('close', onClose);
    options.signal?.removeEventListener('abort', onAbort);
    // Errors after this point (the destroy itself) have no one to report to.
    stream.on('error', () => {});
    stream.destroy();
  }
}
