/**
 * One queue of due times for every timer of the process: a binary heap ordered by the time each
 * is due, and one Node timer set for the earliest. A timer that waits is then an entry in the
 * heap, not a suspended `async` frame with a promise, closures and a Node timer of its own, which
 * every timer of every object held for as long as it waited.
 */
import { systemClock, type Clock, type ClockTimer } from '../structs/clock.ts';

/** An entry: when it is due (its clock's `elapsed()` milliseconds), and what to do then. */
export interface Due {
  at: number;
  /** Its place in the heap, or -1 while it is not queued (kept by the queue). */
  slot: number;
  /** Called once when due; it must not throw (the other due entries of the turn are called after it). */
  fire(): void;
}

/** Node's timers count whole milliseconds: an entry due within one is due now. */
const TOLERANCE = 1;

export class DueQueue {
  private readonly heap: Due[] = [];
  private timer: ClockTimer | undefined;
  /** When the clock's timer is set to fire; Infinity when there is none. */
  private armedAt = Infinity;
  /** What the entries' times are read on, and the one timer is set on. */
  readonly clock: Clock;

  constructor(clock: Clock = systemClock) {
    this.clock = clock;
  }

  /** Queues `entry` at `at` (moved there if it is queued already). */
  schedule(entry: Due, at: number): void {
    if (entry.slot >= 0) this.remove(entry);
    entry.at = at;
    entry.slot = this.heap.length;
    this.heap.push(entry);
    this.up(entry.slot);
    this.arm();
  }

  /**
   * Takes `entry` out of the queue, if it is in it. The Node timer is left for a later entry (it
   * finds nothing due and is set again), unless none is left: then it goes, not to keep the process up.
   */
  remove(entry: Due): void {
    const slot = entry.slot;
    if (slot < 0) return;
    entry.slot = -1;
    const last = this.heap.pop()!;
    if (!this.heap.length) this.arm();
    if (last === entry) return;
    this.place(last, slot);
    this.down(slot);
    this.up(last.slot);
  }

  /** How many entries wait (for tests). */
  get size(): number { return this.heap.length; }

  private arm(): void {
    const first = this.heap[0];
    if (!first) {
      this.timer?.cancel();
      this.timer = undefined;
      this.armedAt = Infinity;
      return;
    }
    if (this.timer && first.at >= this.armedAt) return;
    this.timer?.cancel();
    this.armedAt = first.at;
    this.timer = this.clock.setTimer(this.fireDue, first.at - this.clock.elapsed());
  }

  /** The entries due are taken out first and called after: one that queues itself again waits its turn. */
  private readonly fireDue = (): void => {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.clock.elapsed() + TOLERANCE;
    const due: Due[] = [];
    while (this.heap.length && this.heap[0]!.at <= now) {
      const first = this.heap[0]!;
      this.remove(first);
      due.push(first);
    }
    for (const entry of due) entry.fire();
    this.arm();
  };

  private place(entry: Due, slot: number): void {
    this.heap[slot] = entry;
    entry.slot = slot;
  }

  private up(slot: number): void {
    const entry = this.heap[slot]!;
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (this.heap[parent]!.at <= entry.at) break;
      this.place(this.heap[parent]!, slot);
      slot = parent;
    }
    this.place(entry, slot);
  }

  private down(slot: number): void {
    const entry = this.heap[slot]!;
    const size = this.heap.length;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && this.heap[child + 1]!.at < this.heap[child]!.at) child++;
      if (this.heap[child]!.at >= entry.at) break;
      this.place(this.heap[child]!, slot);
      slot = child;
    }
    this.place(entry, slot);
  }
}

/** The queue of the process's timers on the system's clock. */
export const timerQueue = new DueQueue();

/** Queues of timers on other clocks (tests'), one per clock. */
const otherQueues = new WeakMap<Clock, DueQueue>();

/** The queue of the timers on `clock`. */
export function dueQueueOf(clock: Clock): DueQueue {
  if (clock === systemClock) return timerQueue;
  let queue = otherQueues.get(clock);
  if (!queue) otherQueues.set(clock, queue = new DueQueue(clock));
  return queue;
}
