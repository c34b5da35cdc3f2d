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
export const RECORD_FIELDS = ['started', 'stopped', 'delayed', 'purpose', 'retries', 'success', 'failure', 'message', 'subrefs'] as const;

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

/** A record from an annotation value; `null` for a JSON `null` or anything but an object. */
export function decodeRecord(text: string): ProgressRecord | null {
  const value: unknown = JSON.parse(text);
  return isMapping(value) ? (value as ProgressRecord) : null;
}
