/**
 * Where log records go and how they look: one `LogConfig` object passed down to every logger of
 * an operator. Nothing here is global: two operators in one process may share a config or each
 * have their own; only the CLI makes one for the whole process.
 */
import { DEFAULT_REFKEY, formatRecord, type FormatOptions, type LogFormat } from './formats.ts';
import { INFO, levelOfVerbosity, type Verbosity } from './levels.ts';
import type { LogRecord } from './log-records.ts';
import { streamSink, type LogSink } from './sinks.ts';

export interface LogConfigOptions {
  /** The least level shown; wins over `verbosity`. */
  level?: number;
  /** `quiet` warnings and up, `normal` info and up (the default), `verbose`/`debug` everything. */
  verbosity?: Verbosity;
  format?: LogFormat;
  /** `[namespace/name] ` before object messages; default: on for text formats, off for JSON. */
  prefix?: boolean | null;
  /** The JSON key of the object reference (`object` by default). */
  refkey?: string | null;
  /** Default: the process's stderr in the configured format. */
  sinks?: readonly LogSink[];
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
}

export class LogConfig {
  readonly level: number;
  /** `debug` also asks the lower layers (e.g. the API client) for their internals. */
  readonly verbosity: Verbosity;
  readonly format: FormatOptions;
  readonly sinks: readonly LogSink[];
  readonly clock: () => number;

  constructor(options: LogConfigOptions = {}) {
    this.verbosity = options.verbosity ?? 'normal';
    this.level = options.level ?? (options.verbosity ? levelOfVerbosity(options.verbosity) : INFO);
    const format = options.format ?? 'full';
    this.format = { format, prefix: options.prefix ?? format !== 'json', refkey: options.refkey || DEFAULT_REFKEY };
    this.sinks = options.sinks ?? [streamSink(process.stderr)];
    this.clock = options.clock ?? Date.now;
  }

  render(record: LogRecord): string {
    return formatRecord(record, this.format);
  }

  /** Hands a record to every sink. A failing sink loses the record but never fails the caller. */
  emit(record: LogRecord): void {
    let text: string | undefined;
    const render = (): string => (text ??= this.render(record));
    for (const sink of this.sinks) {
      try {
        sink(record, render);
      } catch {
        // Logging must not break the handling it describes; there is nowhere better to report to.
      }
    }
  }
}
