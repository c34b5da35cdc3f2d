/**
 * What an embedded operator's handlers did, as the tests await it: entries in the order they came,
 * and gates that hold a handler until the test opens them. A test awaits entries, never time.
 */

export class Journal {
  readonly entries: string[] = [];
  readonly #waiters = new Set<() => void>();

  add(entry: string): void {
    this.entries.push(entry);
    for (const waiter of [...this.#waiters]) waiter();
  }

  count(entry: string): number {
    return this.entries.filter((e) => e === entry).length;
  }

  /** Resolves when `entry` has been added `count` times; rejects after `timeout` seconds. */
  until(entry: string, count = 1, timeout = 60): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.count(entry) >= count) { done(); resolve(); }
      };
      const late = (): void => {
        done();
        reject(new Error(`no ${count}× '${entry}' within ${timeout} s; journal: ${JSON.stringify(this.entries)}`));
      };
      const timer = setTimeout(late, timeout * 1000);
      const done = (): void => { clearTimeout(timer); this.#waiters.delete(check); };
      this.#waiters.add(check);
      check();
    });
  }
}

/** A gate a handler waits at until the test opens it. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}
