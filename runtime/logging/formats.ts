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
 *
 * Text is one line per record, whatever the record holds: object names, namespaces and messages
 * come from the cluster (or from whoever created the object), and a newline or a terminal escape
 * there would forge a line of the log or repaint the terminal. Their control characters are
 * written escaped (`\n`, `\x1b`), as are those of an error's message; only the stack's own lines
 * follow on new lines.
 */
import { pythonJson, pythonString } from '../progress/python.ts';
import { levelName, severityOf } from './levels.ts';
import { errorText, type LogRecord, type ObjectReference } from './log-records.ts';
import { asctime, isoUtcMicro } from './time-layouts.ts';

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
  return record.error === undefined ? text : `${text}\n${escapedErrorText(record.error)}`;
}

/** Control characters, and the separators some viewers break lines at (tabs are harmless). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/g;

/** The text with its control characters escaped: `\n`, `\r`, `\x1b`, `\u2028`. */
function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    const code = char.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/**
 * An error's text with its header (`Name: message`, where a message may quote the cluster)
 * escaped, and its stack frames on their lines. Without the usual header, the lines before the
 * first frame are taken for it.
 */
function escapedErrorText(error: unknown): string {
  const text = errorText(error);
  const header = error instanceof Error ? String(error) : '';
  if (header && text.startsWith(header)) return escapeControls(header) + text.slice(header.length);
  const frame = text.search(/\n\s+at /);
  return frame < 0 ? escapeControls(text) : escapeControls(text.slice(0, frame)) + text.slice(frame);
}

/** Python's `%-N.Ns`: padded and cut to exactly `width` characters. */
function fixed(text: string, width: number): string {
  return text.slice(0, width).padEnd(width);
}

export function formatRecord(record: LogRecord, options: FormatOptions): string {
  switch (options.format) {
    case 'plain':
      return withError(escapeControls(prefixed(record, options.prefix)), record);
    case 'full': {
      const head = `[${asctime(record.time)}] ${fixed(record.name, 20)} [${fixed(levelName(record.level), 8)}]`;
      return withError(`${head} ${escapeControls(prefixed(record, options.prefix))}`, record);
    }
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
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pythonString(k)}: ${spacedPythonJson(v)}`).join(', ')}}`;
  }
  return pythonJson(value);
}
