/**
 * The clock of the handlers' time: what `now()` in a handler's context reads, and what the
 * runtime's scheduling of handlers waits on — a reconciler's `requeueAfter`, resync and retry
 * backoff; Kopf's handler delays and retries, and the time stamps of their progress; timers'
 * intervals and daemons' sleeps. The rest of the runtime's waits (Leases, peering, watch streams,
 * the API client's retries) keep the system's time: they deal with other processes, which do not
 * share a test's clock.
 *
 * An operator runs in the clock it is given (`operator({ clock })`): the clock is carried along
 * the operator's asynchronous work, so that the places that read it need no reference of their
 * own. Outside an operator given one, it is the system's clock.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A timer set on a clock. */
export interface ClockTimer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /**
   * Milliseconds that only go forward, for measuring waits (as `performance.now()`): the system's
   * wall clock may be set back, a monotonic one is not.
   */
  elapsed(): number;
  /**
   * Calls `fire` once `ms` milliseconds of this clock have passed, unless cancelled first.
   * `keepAlive`: whether the pending timer keeps the process running (as a Node timer does
   * unless unreferenced).
   */
  setTimer(fire: () => void, ms: number, keepAlive?: boolean): ClockTimer;
}

/** The longest delay Node's timers take (about 24.8 days): beyond it they fire at once, with a warning. */
const LONGEST_MS = 2 ** 31 - 1;

/** The system's clock: `Date.now()`, `performance.now()` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  setTimer(fire, ms, keepAlive = true) {
    let timer: NodeJS.Timeout;
    let left = Math.max(0, ms);
    // Longer waits than Node's timers take are waited in parts.
    const arm = (): void => {
      const part = Math.min(left, LONGEST_MS);
      left -= part;
      timer = setTimeout(() => (left > 0 ? arm() : fire()), part);
      if (!keepAlive) timer.unref();
    };
    arm();
    return { cancel: () => clearTimeout(timer) };
  },
};

const current = new AsyncLocalStorage<Clock>();

/** The clock of the work running now: its operator's, else the system's. */
export function currentClock(): Clock {
  return current.getStore() ?? systemClock;
}

/** Runs `work` (and all the asynchronous work it starts) in `clock`. */
export function runInClock<T>(clock: Clock, work: () => T): T {
  return current.run(clock, work);
}

/** The current time of the work running now, as handlers get it (`now()` in their context). */
export function clockNow(): Date {
  return new Date(currentClock().now());
}
