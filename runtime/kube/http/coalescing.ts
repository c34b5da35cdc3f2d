/**
 * Read coalescing: after a turn of the event loop in which API responses arrived, the thread
 * sleeps for what is left of a short window, so that the responses arriving meanwhile are read
 * and handled together in the next turn rather than each in a turn of its own.
 *
 * Why: an operator that keeps up with its API server is woken for nearly every response alone.
 * Each wake-up starts with caches that the API server (or anything else on the machine) has
 * meanwhile filled with its own work, so the same instructions take more cycles. Handling the
 * responses of a few milliseconds in one turn raises the instructions per cycle and takes CPU off
 * each object (measured on the burst benchmark: bench/README.md, "Figures behind the runtime's
 * choices").
 * A turn that itself took the whole window is not followed by a sleep: a saturated operator
 * gathers responses anyway, and sleeping would only slow it down.
 *
 * The sleep blocks the thread (`Atomics.wait`): timers, other sockets and any application that
 * shares the event loop wait too, for at most the window. So a client coalesces only when asked
 * (`KubeClientOptions.readCoalescing`); `kopf run`, whose process is the operator's own, asks.
 * There is one sleep per turn however many clients ask, since the thread is the same.
 */

/** Sleeps the thread for `ms` milliseconds. */
export type ThreadSleep = (ms: number) => void;

const cell = new Int32Array(new SharedArrayBuffer(4));

function blockingSleep(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}

export class ReadCoalescer {
  readonly #now: () => number;
  readonly #sleep: ThreadSleep;
  /** When the first read of this turn came (ms on `now`'s clock); -1 while none has. */
  #since = -1;
  #window = 0;

  constructor(now: () => number = () => performance.now(), sleep: ThreadSleep = blockingSleep) {
    this.#now = now;
    this.#sleep = sleep;
  }

  /** A read has come in on a connection that coalesces over `window` ms; 0 asks for nothing. */
  read(window: number): void {
    if (window <= 0) return;
    if (this.#since >= 0) {
      this.#window = Math.max(this.#window, window);
      return;
    }
    this.#since = this.#now();
    this.#window = window;
    // The check phase comes after the turn's socket reads and the work they started (their
    // microtasks, the requests they wrote): the sleep is between this turn and the next.
    setImmediate(() => this.#rest());
  }

  #rest(): void {
    const left = this.#window - (this.#now() - this.#since);
    this.#since = -1;
    if (left > 0) this.#sleep(left);
  }
}

/** The thread's coalescer: every connection of every client in this thread reports its reads here. */
export const coalescer = new ReadCoalescer();
