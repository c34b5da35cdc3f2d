/**
 * Per-object serial processing with many objects in parallel (Kopf's queueing, controller-runtime's
 * workqueue). Requests are keyed by the object's uid; while an object is being processed, one
 * waits in its slot: a newer event replaces the pending one (the latest state wins, intermediate
 * states need no handling), and the running cycle is told so through its `pressure` signal to cut
 * its sleeps short. Which request replaces which, and which presses the running cycle, is the
 * table of `requests.ts`.
 * Nothing is kept for a key once its queue is drained: per-object memory lives elsewhere and is
 * dropped when the object is gone.
 *
 * A request that waits far back in line may be kept shelved (`Shelf`): as little as finds the
 * object again, made whole when a worker takes the object. In a burst, or at the cold start of a
 * large fleet, nearly every object waits, and what they wait with would be most of the memory.
 *
 * `pause()` is for freezes (a peering operator of higher priority, a stopping operator): running
 * cycles are told to cut their sleeps short, no new cycle starts, and events keep arriving into
 * their slots, so that `resume()` goes on with the latest state of each object and nothing else.
 */
import { Fifo } from '../structs/fifo.ts';
import { within } from './sleeping.ts';
import { QUEUEING, type Queued } from './requests.ts';

export interface Work<E extends Queued> {
  event: E;
  /** Aborted when a newer event for the same object arrives, or when the queue stops. */
  pressure: AbortSignal;
}

/**
 * Reasons given to the aborted signals. Made once: an abort without a reason creates a
 * DOMException with a stack trace, which for a busy object is a cost paid per event.
 */
const NEWER_EVENT = Object.freeze(new Error('A newer event has come for this object.'));
const PAUSED = Object.freeze(new Error('Processing is paused.'));
const STOPPED = Object.freeze(new Error('The queue is stopping.'));

type Processor<E extends Queued> = (key: string, work: Work<E>) => Promise<void>;

/**
 * How a request is kept while it waits behind `QueueOptions.shelveAfter` others in line: `shelve`
 * makes the little that is kept of it (`undefined`: kept whole, as a request with no state to
 * read again is), `unshelve` the request again when a worker takes the object (`undefined`:
 * nothing is left to process, as for an object gone meanwhile). Unshelving is the shelf's to
 * retry until it succeeds or its signal is aborted (a newer request came, the queue stops).
 */
export interface Shelf<E extends Queued, S extends Queued> {
  shelve(request: E): S | undefined;
  unshelve(shelved: S, signal: AbortSignal): Promise<E | undefined>;
}

interface Slot<E, S> {
  pending: E | undefined;
  /** The pending request, shelved: at most one of the two is set. */
  shelved: S | undefined;
  current: AbortController | undefined;
  /** Set while a worker serves the object; a waiting object has only its slot and its place in line. */
  running: Promise<void> | undefined;
  /** When the pending event's wait began (`performance.now()`), if waits are reported. */
  since: number;
}

export interface QueueOptions<E extends Queued, S extends Queued> {
  /** Workers at most; unlimited if absent. */
  workerLimit?: number | null;
  /** How requests are kept far back in line; kept whole if absent. */
  shelf?: Shelf<E, S>;
  /** Objects in line before a request is shelved rather than kept whole; unlimited if absent. */
  shelveAfter?: number | null;
  /**
   * Told of the seconds each object's event waited, from its arrival (the first of those that
   * replaced each other) to its processing. Absent, the queue does not read the clock.
   */
  waited?: (seconds: number) => void;
}

export class ObjectQueues<E extends Queued, S extends Queued = E> {
  private readonly slots = new Map<string, Slot<E, S>>();
  /**
   * Objects waiting for a worker, oldest first. In a burst most objects wait here, so waiting
   * costs a key in line rather than a suspended function with its promises.
   */
  private readonly line = new Fifo<string>();
  private workers = 0;
  private readonly workerLimit: number;
  private stopped = false;
  private paused: { resumed: Promise<void>; resume: () => void } | undefined;

  private readonly process: Processor<E>;
  private readonly waited: ((seconds: number) => void) | undefined;
  private readonly shelf: Shelf<E, S> | undefined;
  private readonly shelveAfter: number;

  constructor(process: Processor<E>, options: QueueOptions<E, S> = {}) {
    this.process = process;
    this.workerLimit = options.workerLimit ?? Infinity;
    this.waited = options.waited;
    this.shelf = options.shelf;
    this.shelveAfter = options.shelveAfter ?? Infinity;
  }

  /**
   * Puts a request for an object into its queue, the one way in: as the table of `requests.ts`
   * says, it takes the slot or yields to the request waiting there, and presses the running cycle.
   */
  enqueue(key: string, request: E): void {
    if (this.stopped) return;
    const slot = this.slots.get(key);
    if (!slot) {
      const since = this.waited ? performance.now() : 0;
      const fresh: Slot<E, S> = { pending: request, shelved: undefined, current: undefined, running: undefined, since };
      this.slots.set(key, fresh);
      if (this.workers < this.workerLimit) this.start(key, fresh);
      else {
        if (this.line.size >= this.shelveAfter) this.keep(fresh, request);
        this.line.push(key);
      }
      return;
    }
    const rule = QUEUEING[request.kind];
    const waiting = slot.pending ?? slot.shelved;
    if (waiting !== undefined && rule.meets[waiting.kind] === 'yield') return;
    this.wait(slot, request);
    if (rule.interrupts) slot.current?.abort(NEWER_EVENT);
  }

  /** The event waits in the object's slot; its wait is timed from now unless another one waited already. */
  private wait(slot: Slot<E, S>, event: E): void {
    if (this.waited && slot.pending === undefined && slot.shelved === undefined) slot.since = performance.now();
    // A request that replaces a shelved one is as far back in line: it is shelved too.
    if (slot.shelved !== undefined) this.keep(slot, event);
    else slot.pending = event;
  }

  /** Keeps the request shelved in its slot if the shelf takes it, else whole. */
  private keep(slot: Slot<E, S>, request: E): void {
    const shelved = this.shelf?.shelve(request);
    slot.pending = shelved === undefined ? request : undefined;
    slot.shelved = shelved;
  }

  /** Holds all processing until `resume()`; events keep being accepted (the latest one per object). */
  pause(): void {
    if (this.paused) return;
    let resume!: () => void;
    const resumed = new Promise<void>((r) => { resume = r; });
    this.paused = { resumed, resume };
    for (const slot of this.slots.values()) slot.current?.abort(PAUSED);
  }

  resume(): void {
    const paused = this.paused;
    this.paused = undefined;
    paused?.resume();
  }

  get isPaused(): boolean { return this.paused !== undefined; }

  /** How many objects have queued or running work. */
  get size(): number { return this.slots.size; }

  /** How many objects have an event waiting to be processed (counted when asked: not on the hot path). */
  get waiting(): number {
    let count = 0;
    for (const slot of this.slots.values()) if (slot.pending !== undefined || slot.shelved !== undefined) count++;
    return count;
  }

  /** How many objects are being processed now (counted when asked). */
  get processing(): number {
    let count = 0;
    for (const slot of this.slots.values()) if (slot.current !== undefined) count++;
    return count;
  }

  /**
   * Stops taking events, interrupts sleeps, and waits up to `timeout` seconds for running cycles.
   * Returns the keys of the cycles still running then (see `settle()` for what may follow).
   */
  async stop(timeout: number): Promise<string[]> {
    this.stopped = true;
    this.resume(); // paused workers wake up to see that they are stopping
    for (const key of this.line.drain()) this.slots.delete(key);
    // A cycle's signal is its slot's: aborting them all reaches every running cycle.
    for (const slot of this.slots.values()) {
      slot.pending = slot.shelved = undefined;
      slot.current?.abort(STOPPED);
    }
    return this.settle((running) => within(running, timeout));
  }

  /**
   * Waits for the running cycles for as long as `wait` waits for them all, and returns the keys
   * of those still running after it: abandoned, since a promise cannot be forced to end (their
   * handlers run again when the object is next processed, as after a crash).
   */
  async settle(wait: (running: Promise<unknown>) => Promise<void>): Promise<string[]> {
    await wait(Promise.allSettled([...this.slots.values()].map((s) => s.running)));
    return [...this.slots.keys()];
  }

  private start(key: string, slot: Slot<E, S>): void {
    this.workers++;
    slot.running = this.work(key, slot);
  }

  /** A finished worker takes the object that has waited longest. */
  private next(): void {
    while (this.line.size > 0 && this.workers < this.workerLimit) {
      const key = this.line.shift()!;
      const slot = this.slots.get(key);
      if (slot) this.start(key, slot);
    }
  }

  private async work(key: string, slot: Slot<E, S>): Promise<void> {
    try {
      while ((slot.pending !== undefined || slot.shelved !== undefined) && !this.stopped) {
        if (this.paused) { await this.paused.resumed; continue; }
        this.waited?.((performance.now() - slot.since) / 1000);
        slot.current = new AbortController();
        try {
          const event = await this.take(slot, slot.current.signal);
          if (event !== undefined) await this.process(key, { event, pressure: slot.current.signal });
        } finally {
          slot.current = undefined;
        }
      }
    } finally {
      this.slots.delete(key);
      this.workers--;
      this.next();
    }
  }

  /**
   * The slot's request, taken out of it: whole, or unshelved. A newer request meanwhile cuts the
   * unshelving short and goes instead; a pause puts the shelved request back for after it.
   */
  private async take(slot: Slot<E, S>, signal: AbortSignal): Promise<E | undefined> {
    const { pending, shelved } = slot;
    slot.pending = slot.shelved = undefined;
    if (shelved === undefined) return pending;
    const event = await this.shelf!.unshelve(shelved, signal);
    if (!signal.aborted) return event;
    if (slot.pending === undefined && slot.shelved === undefined) slot.shelved = shelved;
    return undefined;
  }
}
