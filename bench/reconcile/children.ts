/**
 * Watches the benchmark's ConfigMaps from outside the operators: which child of each name exists
 * now (by uid), so that a child deleted by hand counts as back only when a new one (another uid)
 * exists. The times come from the API, not from the operators' logs.
 */
import { performance } from 'node:perf_hooks';
import { watchStream, type KubeClient } from '../../runtime/kube/index.ts';
import { ConfigMaps } from '../../runtime/structs/builtins.ts';

export class Children {
  /** The uid of the child of each name that exists now. */
  readonly present = new Map<string, string>();
  readonly #stop = new AbortController();
  readonly #waiters = new Set<() => void>();
  readonly #done: Promise<void>;
  #failure: unknown;

  constructor(client: KubeClient, namespace: string) {
    let listed!: () => void;
    this.ready = new Promise((resolve) => { listed = resolve; });
    this.#done = (async () => {
      try {
        for await (const event of watchStream(client, ConfigMaps, { namespace, signal: this.#stop.signal })) {
          if (event.type === 'LISTED_DONE') listed();
          if (event.type === 'BOOKMARK' || event.type === 'LISTED_DONE') continue;
          const { name = '', uid = '' } = event.object.metadata ?? {};
          if (event.type === 'DELETED') {
            if (this.present.get(name) === uid) this.present.delete(name);
          } else {
            this.present.set(name, uid);
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
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${what}: not within ${timeout / 1000} s (present ${this.present.size})`))),
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
