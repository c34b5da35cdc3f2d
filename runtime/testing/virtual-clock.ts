/**
 * A clock for tests that moves only when told (`advance(seconds)`): an operator given it
 * (`operator({ clock })`, or `runOperator({ clock })`) reads its time in the handlers' `now()` and
 * waits on it for everything that schedules handlers — a reconciler's `requeueAfter`, resync and
 * retries, Kopf's handler delays, timers and daemons' sleeps — so that minutes of a schedule run
 * in the time the handlers take.
 *
 * An operator run as a child process (`runOperator({ clock })`) gets a clock of its own, started at
 * this one's time, which each `advance` moves by as much (through the process's IPC channel).
 *
 * Its timers fire in the order they are due, each with the clock set to its time, in the
 * asynchronous context they were set in. A timer set for no time at all fires at once (on the
 * next turn of the event loop): a clock that stands still must not hold up work that waits for
 * nothing.
 */
import { AsyncResource } from 'node:async_hooks';
import type { ChildProcess } from 'node:child_process';
import type { Clock, ClockTimer } from '../structs/clock.ts';

interface Pending {
  at: number;
  /** The order it was set in: of timers due at once, the first set fires first. */
  order: number;
  fire: () => void;
}

/** Turns of the event loop given to the work a fired timer starts, before the next is due. */
const SETTLING_TURNS = 20;

export class VirtualClock implements Clock {
  #now: number;
  #order = 0;
  readonly #pending = new Set<Pending>();
  /** The clocks of operator processes that follow this one: each is advanced with it. */
  readonly #followers = new Set<(seconds: number) => Promise<void>>();

  /** Starts at `start` (milliseconds since the epoch, or a date), else at the system's time now. */
  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): number { return this.#now; }

  elapsed(): number { return this.#now; }

  setTimer(fire: () => void, ms: number): ClockTimer {
    const bound = AsyncResource.bind(fire);
    if (!(ms > 0)) {
      const immediate = setImmediate(bound);
      return { cancel: () => clearImmediate(immediate) };
    }
    const pending: Pending = { at: this.#now + ms, order: this.#order++, fire: bound };
    this.#pending.add(pending);
    return { cancel: () => { this.#pending.delete(pending); } };
  }

  /** How many timers wait for the clock to move. */
  get waiting(): number { return this.#pending.size; }

  /**
   * Moves the clock `seconds` ahead, firing what becomes due on the way, in order, each at its own
   * time; the work each starts gets some turns of the event loop before the next is due, so that
   * a timer it sets within the span fires too. Resolves once the clock is at its new time.
   */
  async advance(seconds: number): Promise<void> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`Not a number of seconds ahead: ${seconds}`);
    const target = this.#now + seconds * 1000;
    await settle();
    for (let next = this.#next(target); next; next = this.#next(target)) {
      this.#pending.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.fire();
      await settle();
    }
    this.#now = target;
    await Promise.all([...this.#followers].map((advance) => advance(seconds)));
  }

  /** Advances `advance` (another process's clock) with this one, until the returned function is called. */
  follow(advance: (seconds: number) => Promise<void>): () => void {
    this.#followers.add(advance);
    return () => { this.#followers.delete(advance); };
  }

  /** The timer due first, if one is due by `target`. */
  #next(target: number): Pending | undefined {
    let first: Pending | undefined;
    for (const pending of this.#pending) {
      if (pending.at > target) continue;
      if (!first || pending.at < first.at || (pending.at === first.at && pending.order < first.order)) first = pending;
    }
    return first;
  }
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < SETTLING_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** The variable that tells an operator process to run on a virtual clock, and its start (milliseconds). */
export const CLOCK_VARIABLE = 'KOPF_VIRTUAL_CLOCK';

/** What the parent process sends and the operator process answers through the IPC channel. */
interface AdvanceMessage { kopfClock: 'advance'; id: number; seconds: number }
interface AdvancedMessage { kopfClock: 'advanced'; id: number }

/**
 * In an operator process started by `runOperator({ clock })`: a virtual clock, moved by the
 * parent's `advance()`; `undefined` in any other process. The channel does not keep the process
 * alive, and anything else arriving on it is ignored.
 */
export function clockOfParent(): VirtualClock | undefined {
  const start = Number(process.env[CLOCK_VARIABLE]);
  const send = process.send?.bind(process);
  if (!send || !Number.isFinite(start)) return undefined;
  const clock = new VirtualClock(start);
  process.on('message', (message: unknown) => {
    const { kopfClock, id, seconds } = (message ?? {}) as Partial<AdvanceMessage>;
    if (kopfClock !== 'advance' || typeof id !== 'number' || typeof seconds !== 'number') return;
    if (!Number.isFinite(seconds) || seconds < 0) return;
    void clock.advance(seconds).then(() => send({ kopfClock: 'advanced', id } satisfies AdvancedMessage));
  });
  process.channel?.unref();
  return clock;
}

/** The parent's side: advances the clock of the operator process `child`; rejects if it exits first. */
export function followedBy(child: ChildProcess, exited: Promise<unknown>): (seconds: number) => Promise<void> {
  let next = 0;
  return (seconds) => new Promise<void>((resolve, reject) => {
    const id = next++;
    const answered = (message: unknown): void => {
      const reply = (message ?? {}) as Partial<AdvancedMessage>;
      if (reply.kopfClock !== 'advanced' || reply.id !== id) return;
      child.off('message', answered);
      resolve();
    };
    child.on('message', answered);
    void exited.then(() => { child.off('message', answered); reject(new Error('The operator process has exited.')); });
    child.send({ kopfClock: 'advance', id, seconds } satisfies AdvanceMessage);
  });
}
