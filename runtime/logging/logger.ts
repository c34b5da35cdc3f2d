/**
 * The logger the runtime uses everywhere. A logger has a name (`kopf.objects` for messages about
 * objects, as in Kopf), a `LogConfig` (threshold, format, sinks), and optionally the object it
 * speaks about and taps: receivers that belong to one operator (its event poster) rather than to
 * the output. Loggers derived with `child`/`forObject` keep the config and the taps, so an
 * operator builds its root logger once and everything below inherits where records go.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { LogConfig } from './config.ts';
import { CRITICAL, DEBUG, ERROR, INFO, WARNING } from './levels.ts';
import { buildObjectReference, type LogRecord, type ObjectReference } from './log-records.ts';

/** A message, or a function that builds it when the record will be emitted. */
export type Message = string | (() => string);

/** A per-operator receiver of every record its loggers let through (after the level check). */
export type LogTap = (record: LogRecord) => void;

export interface LoggerOptions {
  /** The object the messages are about. */
  ref?: ObjectReference;
  /** Never post these records as Kubernetes Events (Kopf's `LocalObjectLogger`). */
  local?: boolean;
  /** Info reads as debug and debug as quieter still; warnings unchanged (Kopf's `TerseObjectLogger`). */
  terse?: boolean;
  taps?: readonly LogTap[];
}

export class Logger {
  readonly config: LogConfig;
  readonly name: string;
  readonly ref: ObjectReference | undefined;
  readonly local: boolean;
  readonly terse: boolean;
  readonly taps: readonly LogTap[];

  constructor(config: LogConfig, name = 'kopf', options: LoggerOptions = {}) {
    this.config = config;
    this.name = name;
    this.ref = options.ref;
    this.local = options.local ?? false;
    this.terse = options.terse ?? false;
    this.taps = options.taps ?? [];
  }

  /** The same operator's logger under another name, about no object. */
  child(name: string): Logger {
    return new Logger(this.config, name, { taps: this.taps });
  }

  /** A logger about one object, named `kopf.objects`; the body's identity is copied now. */
  forObject(body: KubeObject, options: { local?: boolean; terse?: boolean; name?: string } = {}): Logger {
    return new Logger(this.config, options.name ?? 'kopf.objects', {
      ref: buildObjectReference(body), local: options.local, terse: options.terse, taps: this.taps,
    });
  }

  /** The same logger with more taps (e.g. an operator adding its event poster to a shared base). */
  withTaps(...taps: LogTap[]): Logger {
    return new Logger(
      this.config,
      this.name,
      { ref: this.ref, local: this.local, terse: this.terse, taps: [...this.taps, ...taps] },
    );
  }

  isEnabledFor(level: number): boolean {
    return (this.terse && level < WARNING ? level - 10 : level) >= this.config.level;
  }

  /**
   * `error` (any value) is appended as a stack after the message, like Python's `exc_info`.
   * A function as the message is called only if the level is enabled: for messages that are
   * costly to build (whole bodies and patches at debug level) on hot paths.
   */
  log(level: number, message: Message, error?: unknown): void {
    if (!this.isEnabledFor(level)) return;
    const record: { -readonly [K in keyof LogRecord]: LogRecord[K] } = {
      time: this.config.clock(), level, name: this.name, message: typeof message === 'function' ? message() : message,
    };
    // Set only when there: records are compared and serialised with their fields as given.
    if (this.ref) record.ref = this.ref;
    if (error !== undefined) record.error = error;
    if (this.local) record.local = true;
    this.config.emit(record);
    for (const tap of this.taps) {
      try {
        tap(record);
      } catch {
        // A failing tap (e.g. a closed poster) must not fail the code that logs.
      }
    }
  }

  debug(message: Message, error?: unknown): void { this.log(DEBUG, message, error); }
  info(message: Message, error?: unknown): void { this.log(INFO, message, error); }
  warning(message: Message, error?: unknown): void { this.log(WARNING, message, error); }
  error(message: Message, error?: unknown): void { this.log(ERROR, message, error); }
  critical(message: Message, error?: unknown): void { this.log(CRITICAL, message, error); }
  /** An error-level message with the error's stack: Python's `logger.exception(message)`. */
  exception(message: string, error: unknown): void { this.log(ERROR, message, error); }
}
