/**
 * What the operator remembers about each object between events (Kopf's "memories"):
 * only what cannot be read from the object itself, and dropped when the object is gone.
 */
import type { Memo } from '../registry/contexts.ts';
import type { Essence, HandlerState } from '../progress/index.ts';
import type { ClockTimer } from '../structs/clock.ts';
import type { ObjectFollower, ObjectRelease } from '../actions/engines.ts';
import type { ErrorDelays } from '../queueing/error-delays.ts';

/** The resourceVersion our last patch produced, and until when to wait for it (`deciding.ts`). */
export interface WriteExpectation {
  version: string;
  deadline: number;
  /** An event of that version came into the queue, even if a newer one replaced it there. */
  seen?: boolean;
}

export interface ObjectMemory {
  memo: Memo;
  /** First seen in a listing and not yet fully handled once: resume handlers are due. */
  initial: boolean;
  /** Our last write, awaited before the next state-dependent decision. */
  expected?: WriteExpectation;
  /** Unexpected errors in processing: the delays used so far, and when the current one ends. */
  throttle?: { delays: ErrorDelays; until: number };
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

/**
 * The one owner of what is remembered of each object served: the processing's memory, and through
 * the engines that follow it (timers and daemons, the reconciler, the indexes), theirs. An object
 * is forgotten or let go here, and every follower is told.
 *
 * What outlives an object let go without being deleted (a ring replica's object assigned
 * elsewhere, or all of them when its membership is lost) is our last write to it. The object may
 * come back while its older states are still on their way (the cycle that wrote may even be
 * running as it is let go): they must not be handled as if that write had not been made, or its
 * handlers would run again. So the write is awaited as it would have been, until its deadline.
 */
export class Memories implements ObjectRelease {
  private readonly byKey = new Map<string, ObjectMemory>();
  /** Our last writes to objects let go, oldest first (the deadlines grow with the insertion order). */
  private readonly writesLetGo = new Map<string, WriteExpectation>();
  private readonly operatorMemo: () => Memo;
  private readonly followers: readonly ObjectFollower[];
  constructor(operatorMemo: () => Memo, followers: readonly (ObjectFollower | undefined)[] = []) {
    this.operatorMemo = operatorMemo;
    this.followers = followers.filter((follower) => follower !== undefined);
  }

  recall(key: string, listed: boolean): ObjectMemory {
    let memory = this.byKey.get(key);
    if (!memory) {
      // A shallow copy, as Kopf does: per-object values stay per object, shared objects stay shared.
      memory = { memo: { ...this.operatorMemo() }, initial: listed };
      const written = this.writesLetGo.get(key);
      if (written) {
        memory.expected = written;
        this.writesLetGo.delete(key);
      }
      this.byKey.set(key, memory);
    }
    return memory;
  }

  /**
   * An event of the object comes into its queue: if it is the echo of our last write, that write
   * is seen, though a newer event may replace it in the queue before it is processed.
   */
  passing(key: string, version: string | undefined): void {
    const expected = this.byKey.get(key)?.expected ?? this.writesLetGo.get(key);
    if (expected && version === expected.version) expected.seen = true;
  }

  /**
   * Whether anything is remembered of the object: it was processed since it was last forgotten, or
   * a write of ours to it, let go since, is still awaited.
   */
  has(key: string): boolean {
    return this.byKey.has(key) || this.writesLetGo.has(key);
  }

  /**
   * A cycle's writes are made: the next state-dependent decision waits for their echo. The memory
   * is the one the cycle began with: if the object was let go since, the write outlives it.
   */
  wrote(key: string, memory: ObjectMemory, expected: WriteExpectation): void {
    if (this.byKey.get(key) === memory) memory.expected = expected;
    else this.keepWrite(key, expected);
  }

  /** The object is gone: nothing of it is kept, here or by the followers. */
  forget(key: string): void {
    this.drop(key);
    for (const follower of this.followers) follower.forget(key);
  }

  /**
   * The object is no longer served here, though it exists: only our last write to it is kept; the
   * followers stop what runs for it (resolves once they have).
   */
  async letGo(key: string): Promise<void> {
    const expected = this.byKey.get(key)?.expected;
    this.drop(key);
    if (expected) this.keepWrite(key, expected);
    await Promise.all(this.followers.map((follower) => follower.letGo(key)));
  }

  private drop(key: string): void {
    this.byKey.get(key)?.wakeup?.cancel();
    this.byKey.delete(key);
    this.writesLetGo.delete(key);
  }

  private keepWrite(key: string, expected: WriteExpectation): void {
    // Past its deadline, a kept write would only have the object read afresh when it comes back:
    // such ones go, oldest first, so that objects let go for good leave nothing behind for long.
    const now = Date.now();
    for (const [old, { deadline }] of this.writesLetGo) {
      if (deadline > now) break;
      this.writesLetGo.delete(old);
    }
    this.writesLetGo.delete(key);
    this.writesLetGo.set(key, expected);
  }

  /** Drops every memory of this owner's own (the followers keep theirs: they are stopped on their own). */
  clear(): void {
    for (const key of [...this.byKey.keys()]) this.drop(key);
    this.writesLetGo.clear();
  }

  get size(): number { return this.byKey.size; }
}
