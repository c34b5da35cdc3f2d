/**
 * What the operator remembers about each object between events (Kopf's "memories"):
 * only what cannot be read from the object itself, and dropped when the object is gone.
 */
import type { Memo } from '../registry/contexts.ts';
import type { Essence, HandlerState } from '../progress/index.ts';
import type { ClockTimer } from '../structs/clock.ts';

export interface ObjectMemory {
  memo: Memo;
  /** First seen in a listing and not yet fully handled once: resume handlers are due. */
  initial: boolean;
  /**
   * The resourceVersion our last patch produced, and until when to wait for it; `seen` once an
   * event of that version came into the queue, even if a newer one replaced it there.
   */
  expected?: { version: string; deadline: number; seen?: boolean };
  /** Unexpected errors in processing: the delays used so far, and when the current one ends. */
  throttle?: { delays: Iterator<number>; until: number; last: number };
  /** We removed our finalizer from the object being deleted: it is gone for us; older events are stale. */
  released?: boolean;
  /** A scheduled re-processing (for delayed handlers or the end of throttling). */
  wakeup?: ClockTimer;
  /** When the delayed handlers' wake-up is due (ms since the epoch): a newer event cuts it short. */
  sleepingUntil?: number;
  /**
   * The essence whose records could not be written for their size (`oversize.ts`): said once,
   * and its handlers are not run again until the object changes.
   */
  oversized?: Essence;
  /** Index functions that failed for this object, or wait for their retry (`indexing/`). */
  indexing?: Map<string, HandlerState>;
}

export class Memories {
  private readonly byKey = new Map<string, ObjectMemory>();
  private readonly operatorMemo: () => Memo;
  constructor(operatorMemo: () => Memo) { this.operatorMemo = operatorMemo; }

  recall(key: string, listed: boolean): ObjectMemory {
    let memory = this.byKey.get(key);
    if (!memory) {
      // A shallow copy, as Kopf does: per-object values stay per object, shared objects stay shared.
      memory = { memo: { ...this.operatorMemo() }, initial: listed };
      this.byKey.set(key, memory);
    }
    return memory;
  }

  /**
   * An event of the object comes into its queue: if it is the echo of our last write, that write
   * is seen, though a newer event may replace it in the queue before it is processed.
   */
  passing(key: string, version: string | undefined): void {
    const expected = this.byKey.get(key)?.expected;
    if (expected && version === expected.version) expected.seen = true;
  }

  /** Whether anything is remembered of the object: it was processed since it was last forgotten. */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  forget(key: string): void {
    const memory = this.byKey.get(key);
    memory?.wakeup?.cancel();
    this.byKey.delete(key);
  }

  clear(): void {
    for (const key of [...this.byKey.keys()]) this.forget(key);
  }

  get size(): number { return this.byKey.size; }
}
