/**
 * The state of one handler within a handling cycle: its progress record, parsed. States are
 * immutable; every change makes a new one. `origin` is the record as read, so that a state is
 * written back only if it changed (Kopf compares the stored form, with `null`s left out).
 *
 * "Now" is always passed in, so that the arithmetic is testable and one cycle uses one clock.
 */
import { jsonEqual } from '../structs/diffs.ts';
import { storableRecord, type ProgressRecord } from './records.ts';
import { Timestamp } from './timestamps.ts';

export interface HandlerState {
  /** Whether the handler takes part in this cycle (counts for `done` and delays), or is carried along. */
  readonly active: boolean;
  readonly started: Timestamp;
  readonly stopped: Timestamp | null;
  readonly delayed: Timestamp | null;
  readonly purpose: string | null;
  readonly retries: number;
  readonly success: boolean;
  readonly failure: boolean;
  readonly message: string | null;
  readonly subrefs: readonly string[];
  /** The record this state was read from; `null` for a fresh state. */
  readonly origin: ProgressRecord | null;
}

/** A handler seen for the first time in this cycle. */
export function freshState(now: Timestamp, purpose: string | null = null): HandlerState {
  return {
    active: true, started: now, stopped: null, delayed: null, purpose,
    retries: 0, success: false, failure: false, message: null, subrefs: [], origin: null,
  };
}

/** A state from a stored record (inactive until the cycle selects the handler). */
export function stateFromRecord(record: ProgressRecord, now: Timestamp): HandlerState {
  const time = (value: string | null | undefined) => (
    value === null || value === undefined ? null : Timestamp.parse(value)
  );
  return {
    active: false,
    started: time(record.started) ?? now,
    stopped: time(record.stopped),
    delayed: time(record.delayed),
    purpose: record.purpose ? record.purpose : null,
    retries: record.retries || 0,
    success: record.success || false,
    failure: record.failure || false,
    message: record.message ?? null,
    subrefs: record.subrefs ? [...record.subrefs] : [],
    origin: record,
  };
}

/** The full record to store: every field, `null` where unset, subrefs sorted. */
export function recordOf(state: HandlerState): ProgressRecord {
  return {
    started: state.started.toIso(),
    stopped: state.stopped?.toIso() ?? null,
    delayed: state.delayed?.toIso() ?? null,
    purpose: state.purpose,
    retries: state.retries,
    success: state.success,
    failure: state.failure,
    message: state.message,
    subrefs: state.subrefs.length ? sortedIds(state.subrefs) : null,
  };
}

/** The record as it looks once stored (Kubernetes and the annotations storage drop `null`s). */
export function storedRecordOf(state: HandlerState): ProgressRecord {
  return storableRecord(recordOf(state));
}

/** Whether the state differs from what was read, i.e. must be stored. */
export function hasChanged(state: HandlerState): boolean {
  if (state.origin === null) return true; // never stored: no record equals null
  return !jsonEqual(storedRecordOf(state), state.origin);
}

export function isFinished(state: HandlerState): boolean {
  return state.success || state.failure;
}

export function isSleeping(state: HandlerState, now: Timestamp): boolean {
  return !isFinished(state) && state.delayed !== null && state.delayed.compare(now) > 0;
}

export function isAwakened(state: HandlerState, now: Timestamp): boolean {
  return !isFinished(state) && !isSleeping(state, now);
}

/** Microseconds since the first attempt started. */
export function runtimeOf(state: HandlerState, now: Timestamp): number {
  return now.microsSince(state.started);
}

export function asActive(state: HandlerState): HandlerState {
  return { ...state, active: true };
}

export function withPurpose(state: HandlerState, purpose: string | null): HandlerState {
  return { ...state, purpose };
}

/** Ids sorted as Python sorts strings: by code points, not by UTF-16 units. */
export function sortedIds(ids: Iterable<string>): string[] {
  return [...ids].sort(compareCodePoints);
}

function compareCodePoints(a: string, b: string): number {
  const pa = [...a];
  const pb = [...b];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const diff = (pa[i].codePointAt(0) ?? 0) - (pb[i].codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return pa.length - pb.length;
}
