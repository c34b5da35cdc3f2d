/**
 * The set of running watch streams of one resource, one per served namespace (or one for the
 * whole cluster), started and stopped as the served namespaces come and go. A stream that
 * fails for good fails the set, so the operator fails loudly instead of going deaf.
 */
export type WatchTask = (namespace: string | null, signal: AbortSignal) => Promise<void>;

export class WatcherSet {
  private readonly running = new Map<string | null, { stop: AbortController; done: Promise<void> }>();
  private readonly task: WatchTask;
  private readonly parent: AbortSignal;
  private failure: ((error: unknown) => void) | undefined;
  /** Rejects with the first failure of any stream. */
  readonly failed: Promise<never>;

  constructor(task: WatchTask, parent: AbortSignal) {
    this.task = task;
    this.parent = parent;
    this.failed = new Promise<never>((_, reject) => { this.failure = reject; });
    this.failed.catch(() => undefined); // observed by the operator
  }

  ensure(namespace: string | null): void {
    if (this.running.has(namespace) || this.parent.aborted) return;
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, this.parent]);
    const done = this.task(namespace, signal).catch((error: unknown) => {
      if (!signal.aborted) this.failure?.(error);
    });
    this.running.set(namespace, { stop, done });
  }

  async drop(namespace: string | null): Promise<void> {
    const entry = this.running.get(namespace);
    if (!entry) return;
    this.running.delete(namespace);
    entry.stop.abort();
    await entry.done;
  }

  /** Waits for all streams to end (they end when the parent signal is aborted). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()].map((e) => e.done));
  }
}
