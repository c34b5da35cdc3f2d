/** Resolves once the signal aborts (at once if it has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The work's result, or `undefined` as soon as the signal aborts: for work that cannot be cancelled
 * (a request shared through a cache), which is then left to end on its own, unawaited.
 */
export async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  let onAbort = (): void => {};
  const stopped = new Promise<undefined>((resolve) => { onAbort = () => resolve(undefined); });
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort); // a loop of lookups must not pile listeners up
  }
}
