/**
 * Waiting for something a listener will see, with a deadline: how the fault proxy's tests await
 * the exact request or response they need rather than time.
 */

/**
 * Resolves with the first value the listener settles with. `listen` registers the listener and
 * returns how to remove it; it is removed once settled, or after `timeout` ms, when the wait
 * rejects with `failure()` (called then, so it can say what was seen by that time).
 */
export function within<T>(
  timeout: number,
  failure: () => string,
  listen: (settle: (value: T) => void) => () => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let remove = (): void => {};
    const timer = setTimeout(() => {
      settled = true;
      remove();
      reject(new Error(failure()));
    }, timeout);
    timer.unref(); // a wait that lost a race must not keep the test process alive
    remove = listen((value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      remove();
      resolve(value);
    });
    if (settled) remove(); // settled while it was being registered
  });
}
