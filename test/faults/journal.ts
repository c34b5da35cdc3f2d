/**
 * The journal of handler runs that the operator under test writes (operator/journaled.ts), and
 * what the suite reads from it: which handlers ran for an object, and which runs came after the
 * framework had recorded that handler's success for the same change.
 *
 * "Recorded" is read from the framework's own marks on the object, in Kopf's wire format:
 * a progress record that says `success` (annotation `kopf.zalando.org/<id>`, or the legacy
 * `status.kopf.progress.<id>`); for creation handlers, a diff-base at all (the creation cycle
 * ended); for the update handler, a diff-base whose `spec.step` is the step being handled.
 * A handler's result in `status` alone is not a record: a crash between the result and the
 * record may legitimately lead to a re-run (at least once).
 */
import { existsSync, readFileSync } from 'node:fs';
import { DIFF_BASE, KOPF_PREFIX } from '../e2e/rules.ts';

export type HandlerId = 'create_a' | 'create_b' | 'update_fn' | 'delete_fn';

export interface JournalEntry {
  /** When the run started (ms since the epoch). */
  t: number;
  pid: number;
  handler: HandlerId;
  uid: string;
  name: string;
  /** `spec.step` as this run saw it. */
  step: number;
  retry: number;
  /** The object's marks as the apiserver had them when the run started; null if it could not be read. */
  seen: ObjectMarks | null;
}

/** What the framework keeps on an object: its annotations and `status.kopf`. */
export interface ObjectMarks {
  annotations: Record<string, string>;
  kopf: unknown;
}

/** Whether the run's success for its change had been recorded before it started; null: unknown. */
export function isRecorded(entry: JournalEntry): boolean | null {
  if (!entry.seen) return null;
  const { annotations, kopf } = entry.seen;
  if (progressSucceeded(annotations[`${KOPF_PREFIX}${entry.handler}`])) return true;
  const legacy = kopf as { progress?: Record<string, { success?: boolean }> } | null;
  if (legacy?.progress?.[entry.handler]?.success === true) return true;
  const base = annotations[DIFF_BASE];
  if (base === undefined) return false;
  if (entry.handler === 'create_a' || entry.handler === 'create_b') return true;
  if (entry.handler !== 'update_fn') return false;
  return Number((JSON.parse(base) as { spec?: { step?: unknown } }).spec?.step ?? 0) === entry.step;
}

function progressSucceeded(annotation: string | undefined): boolean {
  if (annotation === undefined) return false;
  try {
    return (JSON.parse(annotation) as { success?: boolean }).success === true;
  } catch {
    return false;
  }
}

export function readJournal(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as JournalEntry);
}

/** Runs that started although their success had been recorded already. */
export function rerunsAfterRecording(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.filter((entry) => isRecorded(entry) === true);
}

export function runsOf(entries: readonly JournalEntry[], uid: string, handler?: HandlerId): JournalEntry[] {
  return entries.filter((entry) => entry.uid === uid && (handler === undefined || entry.handler === handler));
}
