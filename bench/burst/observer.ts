/**
 * Watches the benchmark's objects from outside the operator and notes when each one was seen
 * handled and when it was seen gone: the times come from the API, not from the operator's logs.
 */
import { performance } from 'node:perf_hooks';
import { watchStream, type KubeClient, type StreamEvent } from '../../runtime/kube/index.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../../runtime/structs/resources.ts';

/** An event that carries an object: listed, added, modified or deleted. */
export type ObjectEvent<T extends KubeObject> = Extract<StreamEvent<T>, { object: T }>;

export class Observer<T extends KubeObject> {
  /** performance.now() when each object (by name) was first seen handled, and seen gone. */
  readonly handledAt = new Map<string, number>();
  readonly goneAt = new Map<string, number>();
  readonly #stop = new AbortController();
  readonly #waiters = new Set<() => void>();
  readonly #done: Promise<void>;
  #failure: unknown;

  /** `onEvent` sees every object's event before the waiters check their conditions. */
  constructor(
    client: KubeClient,
    resource: ResourceDescriptor<T, FieldMap>,
    namespace: string,
    isHandled: (object: T) => boolean,
    onEvent?: (event: ObjectEvent<T>) => void,
  ) {
    let listed!: () => void;
    this.ready = new Promise((resolve) => { listed = resolve; });
    this.#done = (async () => {
      try {
        for await (const event of watchStream(client, resource, { namespace, signal: this.#stop.signal })) {
          if (event.type === 'LISTED_DONE') listed();
          if (event.type === 'BOOKMARK' || event.type === 'LISTED_DONE') continue;
          this.#note(event, performance.now(), isHandled);
          onEvent?.(event);
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

  /**
   * Resolves with performance.now() of the event after which `condition` held (checked after every
   * event); rejects after `timeout` ms.
   */
  until(condition: () => boolean, timeout: number, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.#failure) finish(() => reject(this.#failure));
        else if (condition()) finish(() => resolve(performance.now()));
      };
      const timer = setTimeout(() => finish(() => reject(this.#late(what, timeout))), timeout);
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

  #note(event: ObjectEvent<T>, now: number, isHandled: (object: T) => boolean): void {
    const name = event.object.metadata?.name ?? '';
    if (event.type === 'DELETED') {
      if (!this.goneAt.has(name)) this.goneAt.set(name, now);
    } else if (!this.handledAt.has(name) && isHandled(event.object)) {
      this.handledAt.set(name, now);
    }
  }

  #late(what: string, timeout: number): Error {
    const seen = `handled ${this.handledAt.size}, gone ${this.goneAt.size}`;
    return new Error(`${what}: not within ${timeout / 1000} s (${seen})`);
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
