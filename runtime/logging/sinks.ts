/**
 * What a log sink is, and the ready-made ones: a text stream (stderr by default), and a capture for
 * tests that assert the operator's messages and wait for them instead of sleeping.
 */
import type { LogRecord } from './log-records.ts';

/**
 * A destination of records. `render` gives the record as text in the configured format (computed
 * once per record, only if some sink asks), so a sink may write text or use the record's fields.
 */
export type LogSink = (record: LogRecord, render: () => string) => void;

export interface StreamSinkOptions {
  /**
   * Gather the lines logged within one turn of the event loop into one write (on by default).
   * Writes to a pipe or a file are synchronous system calls: a burst of objects logs thousands of
   * lines a second, and when the reader of the pipe falls behind, each call blocks the operator
   * until it catches up; one call per turn blocks once. What is gathered is written before the
   * process exits, even on `process.exit()`.
   */
  batch?: boolean;
}

/** Flushes every sink with pending lines; one listener for the process, however many sinks. */
const pending = new Set<() => void>();
let exitHook = false;

function flushAtExit(flush: () => void): void {
  pending.add(flush);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const pendingFlush of pending) pendingFlush();
  });
}

/** Bytes gathered before they are written at once, without waiting for the end of the turn. */
const BATCH_LIMIT = 64 * 1024;

/** Writes each record as one text entry (plus its stack, if any) to a stream. */
export function streamSink(stream: { write(chunk: string): unknown }, options: StreamSinkOptions = {}): LogSink {
  if (options.batch === false) {
    return (_record, render) => {
      stream.write(`${render()}\n`);
    };
  }
  let text = '';
  const flush = (): void => {
    pending.delete(flush);
    if (!text) return;
    const chunk = text;
    text = '';
    stream.write(chunk);
  };
  return (_record, render) => {
    if (!text) {
      setImmediate(flush).unref();
      flushAtExit(flush);
    }
    text += `${render()}\n`;
    if (text.length >= BATCH_LIMIT) flush();
  };
}

export type RecordMatch = string | RegExp | ((record: LogRecord) => boolean);

export interface LogCapture {
  readonly sink: LogSink;
  readonly records: readonly LogRecord[];
  /** The rendered texts, in the same order as `records`. */
  readonly lines: readonly string[];
  /** Just the messages (without prefixes), for word-for-word assertions. */
  messages(): string[];
  /** The first record (already captured or still to come) that matches; rejects after `timeout` seconds. */
  waitFor(match: RecordMatch, options?: { timeout?: number }): Promise<LogRecord>;
  clear(): void;
}

function matcher(match: RecordMatch): (record: LogRecord) => boolean {
  if (typeof match === 'string') return (r) => r.message === match;
  if (match instanceof RegExp) return (r) => match.test(r.message);
  return match;
}

/** Keeps every record in memory. A string matches a whole message exactly; a RegExp searches it. */
export function captureLogs(): LogCapture {
  const records: LogRecord[] = [];
  const lines: string[] = [];
  const waiters = new Set<{ test: (r: LogRecord) => boolean; resolve: (r: LogRecord) => void }>();
  const sink: LogSink = (record, render) => {
    records.push(record);
    lines.push(render());
    for (const waiter of waiters) {
      if (waiter.test(record)) {
        waiters.delete(waiter);
        waiter.resolve(record);
      }
    }
  };
  return {
    sink,
    records,
    lines,
    messages: () => records.map((r) => r.message),
    clear: () => {
      records.length = 0;
      lines.length = 0;
    },
    waitFor(match, options = {}) {
      const test = matcher(match);
      const found = records.find(test);
      if (found) return Promise.resolve(found);
      const timeout = options.timeout ?? 10;
      return new Promise<LogRecord>((resolve, reject) => {
        const waiter = {
          test,
          resolve: (r: LogRecord) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `No log record matching ${typeof match === 'function' ? 'the predicate' : String(match)} within ` +
                `${timeout} seconds.`
            )
          );
        }, timeout * 1000);
        waiters.add(waiter);
      });
    },
  };
}
