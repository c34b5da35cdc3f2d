/**
 * Interruptible sleep: every wait in the engines ends early when the object gets a newer event
 * (its "pressure" signal) or the operator stops, so stale work is skipped fast.
 */

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
    const timer = setTimeout(() => done(true), Math.min(seconds, 2_147_483) * 1000);
    for (const s of active) s.addEventListener('abort', interrupt, { once: true });
  });
}
