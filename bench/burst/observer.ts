/**
 * Watches the benchmark's objects from outside the operator and notes when each one was seen
 * handled and when it was seen gone: the times come from the API, not from the operator's logs.
 */
import { performance } from 'node:perf_hooks';
import { watchStream, type KubeClient } from '../../runtime/kube/index.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../../runtime/structs/resources.ts';

export class Observer<T extends KubeObject> {
  /** performance.now() when each object (by name) was first seen handled, and seen gone. */
  readonly handledAt = new Map<string, number>();
  readonly goneAt = new Map<string, number>();
  readonly #stop = new AbortController();
  readonly #waiters = new Set<() => void>();
  readonly #done: Promise<void>;
  #failure: unknown;

  constructor(
    client: KubeClient,
    resource: ResourceDescriptor<T, FieldMap>,
    namespace: string,
    isHandled: (object: T) => boolean,
  ) {
    let listed!: () => void;
    this.ready = new Promise((resolve) => { listed = resolve; });
    this.#done = (async () => {
      try {
        for await (const event of watchStream(client, resource, { namespace, signal: this.#stop.signal })) {
          const now = performance.now();
          if (event.type === 'LISTED_DONE') listed();
          if (event.type === 'BOOKMARK' || event.type === 'LISTED_DONE') continue;
          const name = event.object.metadata?.name ?? '';
          if (event.type === 'DELETED') {
            if (!this.goneAt.has(name)) this.goneAt.set(name, now);
          } else if (!this.handledAt.has(name) && isHandled(event.object)) {
            this.handledAt.set(name, now);
          }
          this.#notify();
        }
      } catch (error) {
        this.#failure = error;
        this.#notify();
      }
    })();
  }

  /** Settles once the watch has listed the namespace. */
  readonly ready: Promise<void>;

  /** Resolves when `condition` holds (checked after every event); rejects after `timeout` ms. */
  until(condition: () => boolean, timeout: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.#failure) finish(() => reject(this.#failure));
        else if (condition()) finish(resolve);
      };
      const timer = setTimeout(
        () => finish(
          () => reject(
            new Error(
              `${what}: not within ${timeout / 1000} s (handled ${this.handledAt.size}, gone ${this.goneAt.size})`
            )
          )
        ),
        timeout,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        settle();
      };
      this.#waiters.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
