/**
 * The states of all handlers of one cause on one object (Kopf's `progression.State`): loaded
 * from the progress storage, advanced by outcomes, written back only where they changed, and
 * purged (with all their sub-handlers) once the cause is done. Immutable, like the states.
 */
import { isMapping, jsonText } from '../structs/diffs.ts';
import { patchContent, type Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { withOutcome, type Outcome } from './outcomes.ts';
import {
  asActive, freshState, hasChanged, isFinished, recordOf, stateFromRecord, withPurpose, type HandlerState,
} from './states.ts';
import type { ProgressStorage } from './storage.ts';
import type { Timestamp } from './timestamps.ts';

export interface StateCounters {
  readonly success: number;
  readonly failure: number;
  readonly running: number;
}

export class HandlerStates {
  readonly states: ReadonlyMap<string, HandlerState>;
  /** The cause being handled; states with another purpose belong to an interrupted cause. */
  readonly purpose: string | null;

  constructor(states: Iterable<readonly [string, HandlerState]> = [], purpose: string | null = null) {
    this.states = new Map(states);
    this.purpose = purpose;
  }

  /** The stored states of these handler ids (those with no record are absent). */
  static fromStorage(
    body: KubeObject,
    storage: ProgressStorage,
    handlerIds: Iterable<string>,
    now: Timestamp,
  ): HandlerStates {
    const states: [string, HandlerState][] = [];
    for (const id of new Set(handlerIds)) {
      const record = storage.fetch(id, body);
      if (record !== null) states.push([id, stateFromRecord(record, now)]);
    }
    return new HandlerStates(states);
  }

  get(id: string): HandlerState | undefined {
    return this.states.get(id);
  }

  /** The cause's purpose, also given to the listed handlers' existing states. */
  withPurpose(purpose: string | null, handlerIds: Iterable<string> = []): HandlerStates {
    const states = new Map(this.states);
    for (const id of handlerIds) {
      const state = states.get(id);
      if (state) states.set(id, withPurpose(state, purpose));
    }
    return new HandlerStates(states, purpose);
  }

  /** These handlers take part in the cycle: fresh states for new ones, existing ones made active. */
  withHandlers(handlerIds: Iterable<string>, now: Timestamp): HandlerStates {
    const states = new Map(this.states);
    for (const id of handlerIds) {
      const state = states.get(id);
      states.set(id, state ? asActive(state) : freshState(now, this.purpose));
    }
    return new HandlerStates(states, this.purpose);
  }

  withOutcomes(outcomes: ReadonlyMap<string, Outcome>, now: Timestamp): HandlerStates {
    const unknown = [...outcomes.keys()].filter((id) => !this.states.has(id));
    if (unknown.length) throw new Error(`Unexpected outcomes for unknown handlers: ${unknown.join(', ')}`);
    const states = new Map(this.states);
    for (const [id, outcome] of outcomes) states.set(id, withOutcome(this.states.get(id)!, outcome, now));
    return new HandlerStates(states, this.purpose);
  }

  /** Failed and unfinished states only (the purpose is dropped, as in Kopf). */
  withoutSuccesses(): HandlerStates {
    return new HandlerStates([...this.states].filter(([, state]) => !state.success));
  }

  /** Writes the states that changed since they were read into the patch. */
  store(body: KubeObject, patch: Patch, storage: ProgressStorage): void {
    for (const [id, state] of this.states) if (hasChanged(state)) storage.store(id, recordOf(state), body, patch);
    storage.flush();
  }

  /** Removes the states of these handlers, of any other loaded state, and of all their sub-handlers. */
  purge(body: KubeObject, patch: Patch, storage: ProgressStorage, handlerIds: Iterable<string>): void {
    const owned = new Set(handlerIds);
    for (const id of owned) storage.purge(id, body, patch);
    for (const [id, state] of this.states) {
      if (!owned.has(id)) storage.purge(id, body, patch);
      for (const subref of state.subrefs) storage.purge(subref, body, patch);
    }
    storage.flush();
  }

  /** All active handlers finished (true when there are none). */
  get done(): boolean {
    return [...this.states.values()].every((state) => !state.active || isFinished(state));
  }

  /** Counts of this cause's states (and of states without a purpose). */
  get counts(): StateCounters {
    return count(
      [...this.states.values()].filter((s) => this.purpose === null || s.purpose === null || s.purpose === this.purpose)
    );
  }

  /** Counts of states left from other causes, by their purpose. */
  get extras(): Map<string, StateCounters> {
    const extras = new Map<string, StateCounters>();
    for (const { purpose } of this.states.values()) {
      if (purpose !== null && purpose !== this.purpose && !extras.has(purpose)) {
        extras.set(purpose, count([...this.states.values()].filter((s) => s.purpose === purpose)));
      }
    }
    return extras;
  }

  /** Seconds until each active unfinished handler may run again (0: now). */
  delays(now: Timestamp): number[] {
    return [...this.states.values()]
      .filter((state) => state.active && !isFinished(state))
      .map((state) => (state.delayed ? Math.max(0, state.delayed.secondsSince(now)) : 0));
  }

  /** The shortest delay, or `null` if no handler waits. */
  delay(now: Timestamp): number | null {
    const delays = this.delays(now);
    return delays.length ? Math.min(...delays) : null;
  }
}

function count(states: readonly HandlerState[]): StateCounters {
  return {
    success: states.filter((s) => s.success).length,
    failure: states.filter((s) => s.failure).length,
    running: states.filter((s) => !isFinished(s)).length,
  };
}

/**
 * A handler's return value as it will be stored: JSON, as `JSON.stringify` makes it (fields that
 * are `undefined` or functions dropped, dates as text). A value JSON cannot carry (a BigInt, a
 * cycle) is an error thrown here, so that it is the handler's failure, handled by its `errors`
 * mode, rather than a patch that fails after the handler's success was written.
 */
export function storableResult(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = jsonText(value, 'The result cannot be stored as JSON');
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * A handler's return value into `status.<handler id>` (Kopf's `deliver_results` in
 * `kopf/_core/actions/progression.py`): a mapping is merged into what is there (one level deep),
 * anything else replaces it. Failed attempts and `null`/`undefined` deliver nothing. The value is
 * JSON (see `storableResult`).
 */
export function deliverResult(patch: Patch, handlerId: string, outcome: Pick<Outcome, 'exception' | 'result'>): void {
  const result = outcome.result;
  if (outcome.exception !== null || result === null || result === undefined) return;
  const content = patchContent(patch);
  if (!isMapping(content.status)) content.status = {};
  const status = content.status as { [key: string]: unknown };
  // The value is the handler's own fresh copy (`storableResult`): nothing else holds it.
  if (isMapping(result)) {
    const current = status[handlerId];
    status[handlerId] = { ...(isMapping(current) ? current : {}), ...result };
  } else {
    status[handlerId] = result;
  }
}
