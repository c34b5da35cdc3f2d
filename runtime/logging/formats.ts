/**
 * The three output formats of Kopf's `--log-format`, byte for byte:
 *
 *   plain  `[ns/name] message`
 *   full   `[2026-11-22 15:39:55,651] kopf.objects         [INFO    ] [ns/name] message`
 *   json   `{"message": "…", "timestamp": "…+00:00", "object": {…}, "severity": "info"}`
 *
 * `full` pads and cuts the logger name to 20 characters and the level name to 8. The prefix is
 * on by default for text and off for JSON. An error's stack follows the text on new lines, or goes
 * into `exc_info` in JSON. JSON is written as Python's `json.dumps` writes it (`, ` and `: `
 * separators, non-ASCII escaped), so that log pipelines parsing Kopf's output need no change.
 */
import { pythonJson, pythonString } from '../progress/python.ts';
import { levelName, severityOf } from './levels.ts';
import { errorText, type LogRecord, type ObjectReference } from './records.ts';
import { asctime, isoUtcMicro } from './timestamps.ts';

export type LogFormat = 'plain' | 'full' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['plain', 'full', 'json'];

export interface FormatOptions {
  format: LogFormat;
  /** `[namespace/name] ` before messages about objects. */
  prefix: boolean;
  /** The JSON key of the object reference. */
  refkey: string;
}

export const DEFAULT_REFKEY = 'object';

/** Kopf's prefix: `[namespace/name]`, or `[name]` for cluster-scoped objects. */
export function objectPrefix(ref: ObjectReference): string {
  return ref.namespace ? `[${ref.namespace}/${ref.name ?? ''}]` : `[${ref.name ?? ''}]`;
}

function prefixed(record: LogRecord, prefix: boolean): string {
  return prefix && record.ref ? `${objectPrefix(record.ref)} ${record.message}` : record.message;
}

function withError(text: string, record: LogRecord): string {
  return record.error === undefined ? text : `${text}\n${errorText(record.error)}`;
}

/** Python's `%-N.Ns`: padded and cut to exactly `width` characters. */
function fixed(text: string, width: number): string {
  return text.slice(0, width).padEnd(width);
}

export function formatRecord(record: LogRecord, options: FormatOptions): string {
  switch (options.format) {
    case 'plain':
      return withError(prefixed(record, options.prefix), record);
    case 'full':
      return withError(`[${asctime(record.time)}] ${fixed(record.name, 20)} [${fixed(levelName(record.level), 8)}] ${prefixed(record, options.prefix)}`, record);
    case 'json':
      return formatJson(record, options);
  }
}

function formatJson(record: LogRecord, options: FormatOptions): string {
  const fields: [string, unknown][] = [['message', prefixed(record, options.prefix)]];
  if (record.error !== undefined) fields.push(['exc_info', errorText(record.error)]);
  fields.push(['timestamp', isoUtcMicro(record.time)]);
  if (record.ref && options.refkey) {
    const { apiVersion = null, kind = null, name = null, uid = null, namespace = null } = record.ref;
    fields.push([options.refkey, { apiVersion, kind, name, uid, namespace }]);
  }
  fields.push(['severity', severityOf(record.level)]);
  return `{${fields.map(([key, value]) => `${pythonString(key)}: ${spacedPythonJson(value)}`).join(', ')}}`;
}

/** `json.dumps` with its default `, ` and `: ` separators (the storages write the compact form). */
function spacedPythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spacedPythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${pythonString(k)}: ${spacedPythonJson(v)}`).join(', ')}}`;
  }
  return pythonJson(value);
}
