/**
 * Time limits of exchanges, kept on one timer per thread instead of a Node timer each.
 *
 * Why: every request has a time limit (minutes), and nearly every request ends long before it.
 * Arming a Node timer at each request's start and clearing it at its end was 7% of a request's
 * instructions on the burst's PATCHes (callgrind: 126 k instructions per request against 117 k
 * without the timer). Here a limit is an entry in a set: the one timer is armed for the earliest
 * limit and, when it fires, expires what is due and is armed again for the earliest left. Entries
 * of requests that ended are simply deleted; the timer does not follow them.
 *
 * The timer does not keep the process alive: an exchange with a limit is either on a socket that
 * does, or waits in line behind exchanges on such sockets.
 */

/** A pending limit; `cancel()` it when the exchange ends first. */
export interface Deadline {
  /** When it expires, on `performance.now()`'s clock. */
  readonly at: number;
  readonly expire: () => void;
}

export class Deadlines {
  readonly #now: () => number;
  readonly #pending = new Set<Deadline>();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer is armed for; Infinity while it is not. */
  #armedFor = Infinity;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Calls `expire` once `ms` milliseconds have passed, unless cancelled before. */
  add(ms: number, expire: () => void): Deadline {
    const deadline: Deadline = { at: this.#now() + ms, expire };
    this.#pending.add(deadline);
    if (deadline.at < this.#armedFor) this.#arm(deadline.at);
    return deadline;
  }

  cancel(deadline: Deadline | undefined): void {
    if (deadline) this.#pending.delete(deadline);
  }

  /** Limits not yet expired nor cancelled. */
  get size(): number {
    return this.#pending.size;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - this.#now()));
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.#now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of this.#pending) {
      if (deadline.at <= now) {
        due.push(deadline);
        this.#pending.delete(deadline);
      } else if (deadline.at < next) {
        next = deadline.at;
      }
    }
    // Node's timers run on a millisecond clock, so this one may fire a fraction early: what is
    // not yet due is simply waited for again.
    if (next < Infinity) this.#arm(next);
    for (const deadline of due) deadline.expire();
  }
}

/** The thread's time limits: every exchange of every client in this thread has its limits here. */
export const deadlines = new Deadlines();
