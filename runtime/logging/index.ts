/**
 * The logging folder's public surface, for the layers above and the facade.
 */
export { LogConfig, type LogConfigOptions } from './config.ts';
export {
  DEFAULT_REFKEY,
  LOG_FORMATS,
  formatRecord,
  objectPrefix,
  type FormatOptions,
  type LogFormat,
} from './formats.ts';
export {
  CRITICAL,
  DEBUG,
  ERROR,
  INFO,
  NOTSET,
  WARNING,
  levelName,
  levelOfVerbosity,
  severityOf,
  type Verbosity,
} from './levels.ts';
export { Logger, type LogTap, type LoggerOptions, type Message } from './logger.ts';
export { buildObjectReference, errorText, type LogRecord, type ObjectReference } from './log-records.ts';
export {
  captureLogs, streamSink, type LogCapture, type LogSink, type RecordMatch, type StreamSinkOptions,
} from './sinks.ts';
