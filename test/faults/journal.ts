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
 *
 * A run that returns writes a second line, its end: with the starts, the journal says which
 * processes were in one object's handlers at the same time (`overlaps`), which must never happen.
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

/** The end of a run: written when its handler returns, keyed by the run's pid, uid, handler and start. */
export interface RunEnd {
  ended: number;
  pid: number;
  handler: HandlerId;
  uid: string;
  t: number;
}

/** A run from its start to its end; a run with no end (its process died in it) ends when its process was gone. */
export interface Run {
  entry: JournalEntry;
  end: number;
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

/** The journal's runs as they started (the end lines left out). */
export function readJournal(path: string): JournalEntry[] {
  return readLines(path).filter((line): line is JournalEntry => !('ended' in line));
}

function readLines(path: string): (JournalEntry | RunEnd)[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line) as JournalEntry | RunEnd);
}

/**
 * The journal's runs with their ends; a run without an end line ends when its process was gone
 * (`gone`: pid → ms since the epoch), or never if it was not (it overlaps everything after it).
 */
export function readRuns(path: string, gone: ReadonlyMap<number, number>): Run[] {
  const lines = readLines(path);
  const key = (line: JournalEntry | RunEnd): string => `${line.pid} ${line.uid} ${line.handler} ${line.t}`;
  const ends = new Map(lines.filter((line): line is RunEnd => 'ended' in line).map((end) => [key(end), end.ended]));
  return lines.filter((line): line is JournalEntry => !('ended' in line)).map((entry) => ({
    entry, end: ends.get(key(entry)) ?? gone.get(entry.pid) ?? Infinity,
  }));
}

/** Pairs of runs of one object by two processes at the same time, described. */
export function overlaps(runs: readonly Run[]): string[] {
  const found: string[] = [];
  const sorted = [...runs].sort((a, b) => a.entry.t - b.entry.t);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length && sorted[j]!.entry.t < a.end; j++) {
      const b = sorted[j]!.entry;
      if (b.uid === a.entry.uid && b.pid !== a.entry.pid) {
        found.push(`${a.entry.name}: ${a.entry.handler} in pid ${a.entry.pid} and ${b.handler} in pid ${b.pid}`);
      }
    }
  }
  return found;
}

/** Runs that started although their success had been recorded already. */
export function rerunsAfterRecording(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.filter((entry) => isRecorded(entry) === true);
}

export function runsOf(entries: readonly JournalEntry[], uid: string, handler?: HandlerId): JournalEntry[] {
  return entries.filter((entry) => entry.uid === uid && (handler === undefined || entry.handler === handler));
}
