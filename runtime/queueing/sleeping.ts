/**
 * Interruptible sleep: every wait in the engines ends early when the object gets a newer event
 * (its "pressure" signal) or the operator stops, so stale work is skipped fast. And bounded
 * waits for work that is being stopped: it gets a time, or some turns of the loop, to end.
 */

import type { BackgroundSettings } from '../config/settings.ts';

/** The longest delay Node's timers take (about 24.8 days): beyond it they fire at once, with a warning. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The milliseconds of a timer for `seconds`, within what Node's timers can wait. */
export function timerDelay(seconds: number): number {
  return Math.min(Math.max(0, seconds * 1000), LONGEST_TIMER_MS);
}

/** Sleeps `seconds`; resolves `true` if the full time passed, `false` if a signal interrupted it. */
export function sleep(seconds: number, ...signals: (AbortSignal | undefined)[]): Promise<boolean> {
  const active = signals.filter((s): s is AbortSignal => s !== undefined);
  if (active.some((s) => s.aborted)) return Promise.resolve(false);
  if (seconds <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (full: boolean) => {
      clearTimeout(timer);
      for (const s of active) s.removeEventListener('abort', interrupt);
      resolve(full);
    };
    const interrupt = () => done(false);
    const timer = setTimeout(() => done(true), timerDelay(seconds));
    for (const s of active) s.addEventListener('abort', interrupt, { once: true });
  });
}

/** Waits for `promise`, but no longer than `seconds`; resolves either way (and leaves no timer behind). */
export async function within(promise: Promise<unknown>, seconds: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, timerDelay(seconds)); });
  try {
    await Promise.race([promise.then(undefined, () => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for `promise`, but no longer than `cycles` turns of the event loop that take no time of
 * their own: enough for work that is told to end and can end at once (its awaited operation
 * rejects on an abort) to unwind, and no longer. Kopf gives stopped daemons the same.
 */
export async function withinCycles(promise: Promise<unknown>, cycles: number): Promise<void> {
  let settled = false;
  void promise.then(() => { settled = true; }, () => { settled = true; });
  for (let cycle = 0; cycle < cycles && !settled; cycle++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits for work told to end for as long as Kopf waits for a stopped daemon to exit at once:
 * `background.instantExitTimeout` seconds if set, else `instantExitZeroTimeCycles` turns.
 */
export function exitInstantly(work: Promise<unknown>, background: BackgroundSettings): Promise<void> {
  const { instantExitTimeout, instantExitZeroTimeCycles } = background;
  return instantExitTimeout === null ? withinCycles(work, instantExitZeroTimeCycles) : within(work, instantExitTimeout);
}
