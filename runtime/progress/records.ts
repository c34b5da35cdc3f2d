/**
 * The progress record of one handler (incl. sub-handlers and field handlers), as Kopf stores it:
 * in an annotation as compact JSON, or as an object under `status.kopf.progress.<id>`.
 *
 * Keys in Kopf's order: started, stopped, delayed, purpose, retries, success, failure, message,
 * subrefs. `null` fields are left out unless the storage is verbose. Timestamps are ISO 8601 with
 * microseconds and the offset (`2026-11-22T03:18:01.949187+00:00`); see `timestamps.ts`.
 */
import { isMapping } from '../structs/diffs.ts';
import { pythonJson } from './python.ts';
import { PROGRESS_REMEDY, parseStored, UnreadableStateError } from './unreadable.ts';
import { Timestamp } from './timestamps.ts';

export interface ProgressRecord {
  /** When the first attempt started. */
  started?: string | null;
  /** When the handler finished (succeeded or failed for good). */
  stopped?: string | null;
  /** When to try again; present while the handler waits for a retry. */
  delayed?: string | null;
  /** The cause the record belongs to: `create`, `update`, `delete`, `resume`. */
  purpose?: string | null;
  /** Attempts made so far. */
  retries?: number | null;
  success?: boolean | null;
  failure?: boolean | null;
  /** The last error's text. */
  message?: string | null;
  /** Ids of all sub-handlers of this handler, at any depth, sorted. */
  subrefs?: readonly string[] | null;
}

/** The record's fields in the order Kopf writes them. */
export const RECORD_FIELDS = [
  'started',
  'stopped',
  'delayed',
  'purpose',
  'retries',
  'success',
  'failure',
  'message',
  'subrefs',
] as const;

/**
 * The record as a storage keeps it: unset fields left out, and `null` ones too unless `verbose`
 * (Kubernetes drops `null`s of a merge-patch, and the annotations storage writes none).
 */
export function storableRecord(record: ProgressRecord, verbose = false): ProgressRecord {
  const kept: { [key: string]: unknown } = {};
  for (const key in record) {
    const value = record[key as keyof ProgressRecord];
    if (value === undefined) continue;
    if (verbose || value !== null) kept[key] = value;
  }
  return kept;
}

/** The annotation value: compact JSON as Python writes it; `null` fields omitted unless `verbose`. */
export function encodeRecord(record: ProgressRecord, verbose = false): string {
  return pythonJson(storableRecord(record, verbose));
}

/**
 * A record from an annotation value; `null` for a JSON `null`. Anything else that is not a record
 * of Kopf's shape is an `UnreadableStateError` naming the annotation (`where`).
 */
export function decodeRecord(text: string, where = 'annotation'): ProgressRecord | null {
  const value = parseStored(text, where, PROGRESS_REMEDY);
  return value === null ? null : checkedRecord(value, where);
}

/** The value as a record if it has a record's shape (unknown fields are let through, as Kopf does). */
export function checkedRecord(value: unknown, where: string): ProgressRecord {
  const problem = recordProblem(value);
  if (problem) throw new UnreadableStateError(where, `is not a progress record: ${problem}`, PROGRESS_REMEDY);
  return value as ProgressRecord;
}

const KINDS: Readonly<Record<keyof ProgressRecord, 'timestamp' | 'string' | 'number' | 'boolean' | 'strings'>> = {
  started: 'timestamp', stopped: 'timestamp', delayed: 'timestamp', purpose: 'string', retries: 'number',
  success: 'boolean', failure: 'boolean', message: 'string', subrefs: 'strings',
};

function recordProblem(value: unknown): string | undefined {
  if (!isMapping(value)) return 'a JSON object is expected';
  for (const [field, kind] of Object.entries(KINDS)) {
    const item = value[field];
    if (item === null || item === undefined || isKind(item, kind)) continue;
    return `${field} must be ${KIND_NAMES[kind]}`;
  }
  return undefined;
}

const KIND_NAMES = {
  timestamp: 'an ISO 8601 time',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  strings: 'a list of strings',
} as const;

function isKind(value: unknown, kind: keyof typeof KIND_NAMES): boolean {
  switch (kind) {
    case 'timestamp': return typeof value === 'string' && isTimestamp(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'strings': return Array.isArray(value) && value.every((item) => typeof item === 'string');
    default: return typeof value === kind;
  }
}

function isTimestamp(text: string): boolean {
  try {
    Timestamp.parse(text);
    return true;
  } catch {
    return false;
  }
}
