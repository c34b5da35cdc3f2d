/**
 * Why an object is put into its queue, and the one table of how a request meets what the queue
 * holds for the object already: the request waiting in its slot (one at most), and the cycle
 * running for it. Every way into the queue (`ObjectQueues.enqueue`) goes by this table; what each
 * kind runs once its cycle comes is the processing's (`processing/processing.ts`).
 */

/**
 * - `event`: a state of the object from the watch (or read afresh when the watch was silent);
 * - `wakeup`: a re-processing this runtime scheduled itself (delayed handlers, throttling's end);
 * - `retry`: a step of a ring replica to be tried again (letting a drained object go);
 * - `indexed`: a watch event that waited for the indexes, released now that they are complete;
 * - `reconcile`: a request for the reconciler (a related object, the resync, a requeue, a retry),
 *   with the latest body seen: no newer state, only a reason to look again;
 * - `release`: the object's timers or daemons exited or resumed: what it needs may have changed.
 */
export type RequestKind = 'event' | 'wakeup' | 'retry' | 'indexed' | 'reconcile' | 'release';

/** What the queue needs to know of a request. */
export interface Queued {
  readonly kind: RequestKind;
}

/**
 * What an incoming request does to the one waiting: `replace` it (the latest state wins), or
 * `yield` to it (the waiting one does all that the incoming would: it is dropped).
 */
export type Meeting = 'replace' | 'yield';

interface Rule {
  /** By the kind of the request waiting in the slot. */
  readonly meets: Readonly<Record<RequestKind, Meeting>>;
  /**
   * Whether, having taken the slot, it presses the running cycle (aborts its `pressure`: its sleeps
   * and its wait for our own write end, and it ends before its reconciler if not started yet).
   */
  readonly interrupts: boolean;
}

const REPLACES_ALL: Rule['meets'] = {
  event: 'replace', wakeup: 'replace', retry: 'replace', indexed: 'replace', reconcile: 'replace', release: 'replace',
};
/** An event held for the indexes is older than any waiting now, but a reconcile request (no state of its own). */
const HELD: Rule['meets'] = {
  event: 'yield', wakeup: 'yield', retry: 'yield', indexed: 'yield', reconcile: 'replace', release: 'yield',
};
const YIELDS_TO_ALL: Rule['meets'] = {
  event: 'yield', wakeup: 'yield', retry: 'yield', indexed: 'yield', reconcile: 'yield', release: 'yield',
};

/** The table: the incoming request's kind → what it does to the waiting one, and to the running cycle. */
export const QUEUEING: Readonly<Record<RequestKind, Rule>> = {
  event: { meets: REPLACES_ALL, interrupts: true },
  wakeup: { meets: REPLACES_ALL, interrupts: true },
  retry: { meets: REPLACES_ALL, interrupts: true },
  release: { meets: REPLACES_ALL, interrupts: true },
  indexed: { meets: HELD, interrupts: true },
  // Every cycle runs the reconciler: whatever waits serves a request, and a request presses no one.
  reconcile: { meets: YIELDS_TO_ALL, interrupts: false },
};
