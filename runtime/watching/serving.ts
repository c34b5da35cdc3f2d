/**
 * Which watch streams run: every served resource's, in every served namespace (or once for the
 * whole cluster, and always so for cluster-scoped resources). Both sides may change while the
 * operator runs: namespaces come and go with glob patterns, and a resource named by a string may
 * join once its CRD is created. Whichever comes first, the streams of the pair start.
 */
import type { ResourceDescriptor } from '../structs/resources.ts';
import type { WatcherSet } from './watchers.ts';

interface Entry {
  scope: ResourceDescriptor['scope'];
  watchers: WatcherSet;
}

export class Serving {
  readonly #clusterwide: boolean;
  readonly #entries: Entry[] = [];
  readonly #namespaces = new Set<string>();
  #fail: (error: unknown) => void = () => undefined;
  /** Rejects with the first failure of any resource's streams. */
  readonly failed: Promise<never>;

  constructor(clusterwide: boolean) {
    this.#clusterwide = clusterwide;
    this.failed = new Promise<never>((_, reject) => { this.#fail = reject; });
    this.failed.catch(() => undefined); // observed by the operator
  }

  /** Serves a resource (of this scope) through its set of streams, in the namespaces served so far. */
  add(resource: Pick<ResourceDescriptor, 'scope'>, watchers: WatcherSet): void {
    const entry = { scope: resource.scope, watchers };
    this.#entries.push(entry);
    watchers.failed.catch((error: unknown) => this.#fail(error));
    if (!this.#perNamespace(entry)) watchers.ensure(null);
    else for (const namespace of this.#namespaces) watchers.ensure(namespace);
  }

  addNamespace(namespace: string): void {
    if (this.#namespaces.has(namespace)) return;
    this.#namespaces.add(namespace);
    for (const entry of this.#entries) if (this.#perNamespace(entry)) entry.watchers.ensure(namespace);
  }

  /** Stops the namespace's streams; resolves when they have ended. */
  async removeNamespace(namespace: string): Promise<void> {
    if (!this.#namespaces.delete(namespace)) return;
    const entries = this.#entries.filter((entry) => this.#perNamespace(entry));
    await Promise.all(entries.map((entry) => entry.watchers.drop(namespace)));
  }

  /** Waits for all streams to end (they end when the operator's signal is aborted). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#entries.map((entry) => entry.watchers.settled()));
  }

  #perNamespace(entry: Entry): boolean {
    return !this.#clusterwide && entry.scope === 'Namespaced';
  }
}
