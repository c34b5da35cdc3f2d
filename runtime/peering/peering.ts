/**
 * Peering between operators that serve the same resources, compatible with Kopf's: every operator
 * keeps its record in a peering object, watches the others' records there, and pauses while a
 * live peer outranks it (or equals it). Cluster-wide operators meet in one `ClusterKopfPeering`;
 * namespaced ones in a `KopfPeering` in each served namespace.
 *
 * Each peering object has a toggle in the operator's pause set, on while the object says to pause.
 * A toggle starts on, so that nothing is processed before the first look at the object; without
 * mandatory peering, an absent object lets the operator work (as if standalone). With mandatory
 * peering (a name given), an absent object or CRD keeps the operator paused.
 */
import type { PeeringSettings } from '../config/settings.ts';
import type { KubeClient } from '../kube/index.ts';
import { repeatingDelay } from '../kube/backoff.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import type { Toggle, ToggleSet } from '../structs/toggles.ts';
import { thrownText } from '../structs/errors.ts';
import { unlessAborted } from '../structs/aborts.ts';
import { keepAlive, where, type OwnPeer, type PeeringPlace } from './keepalive.ts';
import { observePeering } from './observer.ts';
import { servedPeeringResources, type PeeringObject } from './peering-resources.ts';

export interface PeeringOptions {
  client: KubeClient;
  settings: PeeringSettings;
  identity: string;
  /** The operator's pause set: the peering's toggles join it. */
  paused: ToggleSet;
  /** Peers that never pause this operator: the other replicas of its ring, if it is in one. */
  siblings?: (identity: string) => boolean;
  logger: Logger;
  signal: AbortSignal;
}

/** How long to wait before looking for the peering CRDs again, and before restarting a failed watch. */
const RETRY_DELAYS = [1, 2, 5, 10, 30];

interface Place extends PeeringPlace {
  toggle: Toggle;
  stop: AbortController;
  done: Promise<void>;
}

export class Peering {
  readonly #options: PeeringOptions;
  readonly #own: OwnPeer;
  readonly #namespaces = new Set<string>();
  readonly #places: Place[] = [];
  #resources: ResourceDescriptor<PeeringObject>[] = [];
  #missing: Toggle | undefined;
  readonly #found: Promise<void>;
  #looked!: () => void;
  /** Resolves after the first look for the peering resources: their toggles exist from then on. */
  readonly ready: Promise<void>;

  constructor(options: PeeringOptions) {
    this.#options = options;
    const { priority, lifetime, stealth } = options.settings;
    this.#own = { identity: options.identity, priority, lifetime, stealth, siblings: options.siblings };
    if (options.settings.mandatory) this.#missing = options.paused.make('peering CRD is missing', true);
    this.ready = new Promise((resolve) => { this.#looked = resolve; });
    this.#found = this.#findResources().finally(() => this.#looked());
  }

  addNamespace(namespace: string): void {
    if (this.#namespaces.has(namespace)) return;
    this.#namespaces.add(namespace);
    for (const resource of this.#resources) this.#start(resource, namespace);
  }

  async removeNamespace(namespace: string): Promise<void> {
    if (!this.#namespaces.delete(namespace)) return;
    const leaving = this.#places.filter((place) => place.namespace === namespace);
    await Promise.all(leaving.map((place) => this.#stop(place)));
  }

  /** Waits until every keep-alive has removed its record (they end when the operator's signal aborts). */
  async settled(): Promise<void> {
    await this.#found.catch(() => undefined);
    await Promise.allSettled(this.#places.map((place) => place.done));
  }

  async #findResources(): Promise<void> {
    const { client, settings, logger, signal } = this.#options;
    for (let attempt = 0; !signal.aborted; attempt++) {
      if (attempt) client.discovery.invalidate();
      const lookup = servedPeeringResources(client, settings.clusterwide).catch((error: unknown) => {
        if (!signal.aborted) logger.error(`Looking for the peering resources failed: ${thrownText(error)}`);
        return undefined;
      });
      // Discovery retries an unreachable server for about a minute: a stop must not wait for that.
      const found = await unlessAborted(lookup, signal);
      if (signal.aborted) return;
      if (found?.length) return this.#serve(found);
      if (found && !settings.mandatory) return; // auto-detection: no CRD, no peering
      if (found && !attempt) logger.warning(missingMessage(settings));
      this.#looked(); // paused by the missing CRD meanwhile
      const delay = repeatingDelay(RETRY_DELAYS, attempt);
      if (!(await sleep(delay, signal))) return;
    }
  }

  #serve(resources: ResourceDescriptor<PeeringObject>[]): void {
    this.#resources = resources;
    const namespaces = this.#options.settings.clusterwide ? [null] : [...this.#namespaces];
    for (const resource of resources) for (const namespace of namespaces) this.#start(resource, namespace);
    if (this.#missing) this.#options.paused.drop(this.#missing);
  }

  #start(resource: ResourceDescriptor<PeeringObject>, namespace: string | null): void {
    const { client, settings, paused, logger, signal } = this.#options;
    const name = settings.name;
    const toggle = paused.make(`${name}@${namespace ?? 'cluster'}`, true);
    const stop = new AbortController();
    const place: Place = { client, resource, namespace, name, toggle, stop, done: Promise.resolve() };
    const until = AbortSignal.any([stop.signal, signal]);
    place.done = Promise.all([
      keepAlive(place, this.#own, logger, until),
      this.#observe(place, until),
    ]).then(() => undefined);
    this.#places.push(place);
  }

  async #stop(place: Place): Promise<void> {
    place.stop.abort();
    await place.done;
    this.#places.splice(this.#places.indexOf(place), 1);
    this.#options.paused.drop(place.toggle);
  }

  /** Watches the peering object, restarting the watch if it fails, until the signal aborts. */
  async #observe(place: Place, signal: AbortSignal): Promise<void> {
    const { logger, settings } = this.#options;
    for (let failures = 0; !signal.aborted;) {
      try {
        await observePeering(place, this.#own, place.toggle, settings.mandatory, logger, signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        logger.error(`Watching the peering object ${where(place)} failed: ${thrownText(error)}`);
        const delay = repeatingDelay(RETRY_DELAYS, failures++);
        if (!(await sleep(delay, signal))) return;
      }
    }
  }
}

function missingMessage(settings: PeeringSettings): string {
  const kind = settings.clusterwide ? 'ClusterKopfPeering' : 'KopfPeering';
  return `The peering CRD (${kind}) is not served: processing stays paused until it is (peering is mandatory). `
    + 'Apply the manifests that `kopf peering` prints.';
}
