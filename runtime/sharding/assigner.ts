/**
 * The assigner of a ring: the one replica (elected on a Lease of its own) that places the objects.
 * It watches the ring's members (their Leases) and the served objects' metadata (not the objects),
 * and puts each object where the ring wants it (`decisions.ts`), by a label. It keeps only what the
 * placing needs per object (name, position on the ring, labels, resourceVersion).
 *
 * - A member is alive while its Lease is renewed: its expiry is judged by our own clock, from when
 *   we last saw the Lease change, as the leader election judges. Before a member is judged dead,
 *   its Lease is read afresh: a watch that has silently stopped bringing changes must not make a
 *   living member look dead. A Lease without a holder (released: a clean stop, which then deletes
 *   it) is a member gone at once. A Lease deleted while it has a holder (by hand, not by its member,
 *   which creates it again at its next renewal) is judged as one not renewed: gone only once it
 *   would have expired.
 * - Nothing is placed before the members are listed: a member not known yet is not a member gone.
 * - Every write is guarded by the object's resourceVersion: a write based on an older state fails
 *   (409) and the newer state's event decides again; nothing is decided on stale labels.
 * - While this replica is not the elected assigner, it follows the members only (their Leases), not
 *   the objects, and places nothing.
 */
import type { ShardingSettings } from '../config/settings.ts';
import {
  getObject, isConflict, isNotFound, keyOf, patchObjectVersion, watchStream, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import { Leases, type Lease } from '../structs/builtins.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import type { RingMoveReason } from '../observation/metrics.ts';
import type { WatchTask } from '../watching/watchers.ts';
import { decideMove, placementKey, type Placement } from './decisions.ts';
import { DRAIN_VALUE, RING_LABEL, drainLabel, placementOf, shardLabel } from './ring-labels.ts';
import { HashRing, positionOf } from './ring.ts';

export interface AssignerOptions {
  client: KubeClient;
  settings: ShardingSettings & { ring: string };
  /** The Leases' namespace. */
  namespace: string;
  /** On while this replica is not the elected assigner. */
  standby: ToggleSet;
  logger: Logger;
  now?: () => number;
  /** Told of each object moved (its label written), and why: for the ring's metrics. */
  moved?: (reason: RingMoveReason) => void;
}

/** What the assigner knows of one object. */
interface Tracked {
  resource: ResourceDescriptor;
  namespace: string | undefined;
  name: string;
  /** Its position on the ring (of its controller's uid, or its own). */
  position: number;
  placement: Placement;
  version: string | undefined;
}

/** A member's Lease as last seen, and when by our clock. */
interface Seen {
  version: string | undefined;
  at: number;
  duration: number;
  /** Expired, and read afresh unchanged: dead. */
  confirmed?: boolean;
  /** The fresh read is under way. */
  confirming?: boolean;
}

export class RingAssigner {
  readonly #options: AssignerOptions;
  readonly #now: () => number;
  readonly #members = new Map<string, Seen>();
  readonly #objects = new Map<string, Tracked>();
  /** Objects with a write in flight, and those to decide again when it is done. */
  readonly #writing = new Set<string>();
  readonly #again = new Set<string>();
  #listed = false;
  #ring = new HashRing([]);
  #expiry: NodeJS.Timeout | undefined;

  constructor(options: AssignerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The members alive now, as this assigner sees them. */
  get members(): ReadonlySet<string> { return this.#ring.members; }

  /**
   * The objects assigned to each living member, as far as this replica tracks them: all the served
   * objects while it assigns, none while it stands by.
   */
  held(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const member of this.#ring.members) counts.set(member, 0);
    for (const { placement: { shard } } of this.#objects.values()) {
      if (shard !== undefined && counts.has(shard)) counts.set(shard, counts.get(shard)! + 1);
    }
    return counts;
  }

  /**
   * Watches the ring's members until `signal` is aborted — as a standby too: one elected after the
   * assigner died knows already how long each Lease has gone unrenewed by its own clock, rather than
   * starting to count at its election (which would add a lease's duration to every failover).
   */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, settings } = this.#options;
    while (!signal.aborted) {
      try {
        await this.#watchMembers(signal);
      } catch (error) {
        if (!signal.aborted) logger.debug(`The watch of the ring's members ended: ${thrownText(error)}`);
      }
      this.#forgetMembers();
      await sleep(settings.retryPeriod, signal);
    }
  }

  /** The watch of one served resource's objects in one namespace (or cluster-wide), while assigning. */
  watcher(resource: ResourceDescriptor): WatchTask {
    return async (namespace, signal) => {
      const keys = new Set<string>();
      const forget = () => { for (const key of keys) this.#objects.delete(key); keys.clear(); };
      await this.#whileAssigning(signal, (until) => this.#watchObjects(resource, namespace, keys, until), forget);
    };
  }

  async #whileAssigning(
    signal: AbortSignal, watch: (until: AbortSignal) => Promise<void>, forget: () => void,
  ): Promise<void> {
    const { standby, logger } = this.#options;
    while (!signal.aborted && await standby.wait(false, signal)) {
      const untilStandby = standby.untilOn(signal);
      try {
        await watch(untilStandby.signal);
      } catch (error) {
        if (!untilStandby.signal.aborted) throw error;
        logger.debug(`A watch of the assigner ended: ${thrownText(error)}`);
      } finally {
        untilStandby.dispose();
        forget();
      }
    }
  }

  async #watchMembers(signal: AbortSignal): Promise<void> {
    const { client, namespace, settings } = this.#options;
    const options = { namespace, labelSelector: `${RING_LABEL}=${settings.ring}`, signal };
    for await (const event of watchStream<Lease>(client, Leases, options)) {
      if (event.type === 'LISTED_DONE') { this.#listed = true; this.#refresh(); continue; }
      if (event.type === 'BOOKMARK') continue;
      const name = event.object.metadata?.name ?? '';
      const held = Boolean(event.object.spec?.holderIdentity);
      // A synthetic deletion (missed while the watch was broken) carries no spec: not known to be released.
      if (event.type === 'DELETED') { if (!held && !event.synthetic) this.#members.delete(name); }
      else if (!held) this.#members.delete(name);
      else this.#observe(name, event.object);
      if (this.#listed) this.#refresh();
    }
  }

  #observe(name: string, lease: Lease): void {
    const version = lease.metadata?.resourceVersion;
    const seen = this.#members.get(name);
    if (seen && seen.version === version) return;
    const duration = lease.spec?.leaseDurationSeconds ?? this.#options.settings.leaseDuration;
    this.#members.set(name, { version, at: this.#now(), duration });
  }

  /** Reads an expired member's Lease: changed since, it is alive (seen now); unchanged or absent, dead. */
  #confirm(name: string, seen: Seen): void {
    if (seen.confirming) return;
    seen.confirming = true;
    const { client, namespace, settings, logger } = this.#options;
    const read = getObject(client, Leases, { namespace, name })
      .then((lease) => (lease.spec?.holderIdentity ? lease.metadata?.resourceVersion : null)); // released: gone
    read.catch((error: unknown) => (isNotFound(error) ? null : Promise.reject(error))).then((version) => {
      seen.confirming = false;
      if (this.#members.get(name) !== seen) return; // seen changing meanwhile, or gone
      const changed = version && version !== seen.version;
      if (changed) this.#members.set(name, { version, at: this.#now(), duration: seen.duration });
      else seen.confirmed = true;
      if (this.#listed) this.#refresh();
    }, (error: unknown) => {
      seen.confirming = false;
      logger.debug(`Could not read the lease '${name}': ${thrownText(error)}; trying again soon.`);
      const retry = setTimeout(() => { if (this.#listed) this.#refresh(); }, settings.retryPeriod * 1000);
      retry.unref?.();
    });
  }

  #forgetMembers(): void {
    this.#listed = false;
    this.#members.clear();
    this.#ring = new HashRing([]);
    clearTimeout(this.#expiry);
  }

  /** Recomputes the living members; if they changed, every object is decided again. */
  #refresh(): void {
    clearTimeout(this.#expiry);
    const now = this.#now();
    const alive: string[] = [];
    let soonest = Infinity;
    for (const [name, seen] of this.#members) {
      const expires = seen.at + seen.duration * 1000;
      if (expires > now) { alive.push(name); soonest = Math.min(soonest, expires); }
      else if (!seen.confirmed) { alive.push(name); this.#confirm(name, seen); } // alive until the read says
    }
    if (soonest !== Infinity) {
      this.#expiry = setTimeout(() => this.#refresh(), soonest - now + 1);
      this.#expiry.unref?.();
    }
    const was = this.#ring.members;
    if (alive.length === was.size && alive.every((name) => was.has(name))) return;
    this.#ring = new HashRing(alive);
    const { logger, settings } = this.#options;
    logger.info(`The ring '${settings.ring}' has ${alive.length} member(s): ${alive.sort().join(', ') || 'none'}.`);
    for (const key of this.#objects.keys()) this.#decide(key);
  }

  async #watchObjects(
    resource: ResourceDescriptor, namespace: string | null, keys: Set<string>, signal: AbortSignal,
  ): Promise<void> {
    const options = { namespace, signal, metadataOnly: true };
    for await (const event of watchStream<KubeObject>(this.#options.client, resource, options)) {
      if (!('object' in event)) continue;
      const key = keyOf(event.object);
      if (event.type === 'DELETED') { keys.delete(key); this.#objects.delete(key); continue; }
      keys.add(key);
      this.#objects.set(key, this.#track(resource, event.object));
      this.#decide(key);
    }
  }

  #track(resource: ResourceDescriptor, body: KubeObject): Tracked {
    const metadata = body.metadata ?? {};
    return {
      resource, namespace: metadata.namespace, name: metadata.name ?? '', position: positionOf(placementKey(body)),
      placement: placementOf(body, this.#options.settings.ring), version: metadata.resourceVersion,
    };
  }

  /** Decides where the object goes, and writes it (one write per object at a time). */
  #decide(key: string): void {
    if (!this.#listed) return;
    if (this.#writing.has(key)) { this.#again.add(key); return; }
    const tracked = this.#objects.get(key);
    if (!tracked) return;
    const move = decideMove(tracked.placement, this.#ring.ownerAt(tracked.position), this.#ring.members);
    if (move.kind === 'stay') return;
    const ring = this.#options.settings.ring;
    const labels = move.kind === 'assign'
      ? { [shardLabel(ring)]: move.to, [drainLabel(ring)]: null }
      : { [drainLabel(ring)]: DRAIN_VALUE };
    const reason: RingMoveReason = move.kind === 'drain' ? 'drain'
      : tracked.placement.shard === undefined ? 'assign' : 'failover';
    this.#writing.add(key);
    void this.#write(key, tracked, labels, reason).finally(() => {
      this.#writing.delete(key);
      if (this.#again.delete(key)) this.#decide(key);
    });
  }

  async #write(
    key: string, tracked: Tracked, labels: Record<string, string | null>, reason: RingMoveReason,
  ): Promise<void> {
    const { client, logger, settings } = this.#options;
    const where = `${tracked.namespace ? `${tracked.namespace}/` : ''}${tracked.name}`;
    try {
      const patch = { metadata: { resourceVersion: tracked.version, labels } };
      const ref = { namespace: tracked.namespace, name: tracked.name };
      const version = await patchObjectVersion(client, tracked.resource, ref, patch);
      const to = labels[shardLabel(settings.ring)];
      const placement = to ? { shard: to, draining: false } : { ...tracked.placement, draining: true };
      if (this.#objects.get(key) === tracked) this.#objects.set(key, { ...tracked, placement, version });
      this.#options.moved?.(reason);
      const what = to ? `assigned to ${to}` : 'drained';
      logger.debug(`The object ${where} is ${what}.`);
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return; // its newer state (or its deletion) decides
      logger.warning(`Could not place the object ${where}: ${thrownText(error)}; trying again soon.`);
      const retry = setTimeout(() => this.#decide(key), settings.retryPeriod * 1000);
      retry.unref?.();
    }
  }
}
