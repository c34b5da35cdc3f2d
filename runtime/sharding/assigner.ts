/**
 * The assigner of a ring: the one replica (elected on a Lease of its own) that places the objects.
 * It watches the ring's members (their Leases) and the served objects' metadata (not the objects),
 * and puts each object where the ring wants it (`decisions.ts`), by a label and the ring's seal of
 * it (`seals.ts`). It keeps only what the placing needs per object (name, position on the ring,
 * labels, the last seal of the ring seen on it, resourceVersion).
 *
 * - The members are judged by their sealed renewals, never by the Leases' own fields (`members.ts`):
 *   those alive and in the ring are placed on; the objects of those alive but out of it (their Lease
 *   deleted by someone else) are drained; those of a member gone (released, or expired and read
 *   afresh as such) are placed anew directly.
 * - An object's placement is what the ring sealed, never the label alone: a label that disagrees
 *   with the seal is put back; a label without a seal (or an older seal put back) is drained, so
 *   that its member seals a release before the object is assigned anew.
 * - Nothing is placed before the members are listed: a member not known yet is not a member gone.
 * - Every write is guarded by the object's resourceVersion: a write based on an older state fails
 *   (409) and the newer state's event decides again; nothing is decided on stale labels.
 * - While this replica is not the elected assigner, it follows the members only (their Leases), not
 *   the objects, and places nothing.
 * - The children of the resources that reconcilers own follow their owners (`children.ts`): before
 *   an object is assigned, its children are labelled for the member it goes to.
 */
import type { ShardingSettings } from '../config/settings.ts';
import {
  isConflict, isNotFound, keyOf, patchObjectVersion, watchStream, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import { Leases, type Lease } from '../structs/builtins.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import type { RingMoveReason } from '../observation/metrics.ts';
import type { WatchTask } from '../watching/watchers.ts';
import { RingChildren } from './children.ts';
import { RingMembers } from './members.ts';
import { decideMove, placementKey, type Move, type Placement } from './decisions.ts';
import {
  DRAIN_VALUE, RING_LABEL, drainLabel, placementOf, sealAnnotation, sealOf, shardLabel,
} from './ring-labels.ts';
import { HashRing, positionOf } from './ring.ts';
import type { Assignment, RingSeals } from './seals.ts';

export interface AssignerOptions {
  client: KubeClient;
  settings: ShardingSettings & { ring: string };
  /** The Leases' namespace. */
  namespace: string;
  /** On while this replica is not the elected assigner. */
  standby: ToggleSet;
  /** The ring's key: what it seals is the ring's; nothing else is believed. */
  seals: RingSeals;
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
  uid: string | undefined;
  /** Its position on the ring (of its controller's uid, or its own). */
  position: number;
  placement: Placement;
  /** The newest assignment or release of it sealed by the ring, as seen by this assigner. */
  sealed: Assignment | undefined;
  version: string | undefined;
}

export class RingAssigner {
  readonly #options: AssignerOptions;
  readonly #now: () => number;
  /** The members, judged by their sealed renewals. */
  readonly #members: RingMembers;
  readonly #objects = new Map<string, Tracked>();
  /** Objects with a write in flight, and those to decide again when it is done. */
  readonly #writing = new Set<string>();
  readonly #again = new Set<string>();
  /** The members whose objects are drained before they move: the ring's, and those that left but may live. */
  #alive: ReadonlySet<string> = new Set();
  #listed = false;
  #ring = new HashRing([]);
  /** The owned children, labelled for their owners' members. */
  readonly #children: RingChildren;

  constructor(options: AssignerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    const { client, logger, settings: { ring, retryPeriod } } = options;
    const changed = () => { if (this.#listed) this.#refresh(); };
    this.#members = new RingMembers({ ...options, now: this.#now, changed });
    this.#children = new RingChildren({ client, ring, retryPeriod, logger, holderOf: (uid) => this.#holderOf(uid) });
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
      this.#unlisted();
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

  /**
   * The watch of one owned resource's children (metadata) in one namespace (or cluster-wide), while
   * assigning: their labels follow their owners' members.
   */
  childrenWatcher(resource: ResourceDescriptor): WatchTask {
    return async (namespace, signal) => {
      const keys = new Set<string>();
      const forget = () => { for (const key of keys) this.#children.forget(key); keys.clear(); };
      await this.#whileAssigning(signal, (until) => this.#children.watch(resource, namespace, keys, until), forget);
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
      if (event.type === 'DELETED') this.#members.leave(name);
      else this.#members.observe(name, event.object);
      if (this.#listed) this.#refresh();
    }
  }

  /** The watch of the members ended: nothing is placed until they are listed again (what is known of them is kept). */
  #unlisted(): void {
    this.#listed = false;
    this.#members.unlisted();
  }

  /**
   * Recomputes the members: those placed on (alive, in the ring), and those whose objects are
   * drained before they move (alive, in the ring or left it); if either changed, every object is
   * decided again.
   */
  #refresh(): void {
    const { placing, alive } = this.#members.judge();
    const was = this.#ring.members, wasAlive = this.#alive;
    this.#alive = alive;
    const same = (a: ReadonlySet<string>, b: Iterable<string>, size: number) => {
      return a.size === size && [...b].every((name) => a.has(name));
    };
    if (same(was, placing, placing.length) && same(wasAlive, alive, alive.size)) return;
    if (!same(was, placing, placing.length)) {
      this.#ring = new HashRing(placing);
      const { logger, settings } = this.#options;
      const names = placing.sort().join(', ') || 'none';
      logger.info(`The ring '${settings.ring}' has ${placing.length} member(s): ${names}.`);
    }
    for (const key of this.#objects.keys()) this.#decide(key);
    this.#children.refresh();
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
      const tracked = this.#track(resource, event.object, this.#objects.get(key));
      this.#objects.set(key, tracked);
      this.#decide(key);
      if (tracked.uid) this.#children.ownerChanged(tracked.uid);
    }
  }

  #track(resource: ResourceDescriptor, body: KubeObject, previous: Tracked | undefined): Tracked {
    const metadata = body.metadata ?? {};
    const { ring } = this.#options.settings;
    const opened = this.#options.seals.openAssignment(metadata.uid, sealOf(body, ring));
    const known = previous?.uid === metadata.uid ? previous?.sealed : undefined;
    const accepted = opened && follows(opened, known) ? opened : undefined;
    const sealed = accepted ?? known;
    const labelled = placementOf(body, ring);
    let placement: Placement;
    if (!sealed) placement = { ...labelled, verified: labelled.shard === undefined };
    else if (sealed.state === 'released') placement = { shard: undefined, draining: false };
    else placement = { ...labelled, shard: sealed.member, intact: !!accepted && labelled.shard === sealed.member };
    if (!accepted && labelled.shard !== undefined && labelled.shard !== placement.shard) {
      const where = `${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name ?? ''}`;
      this.#options.logger.warning(`The object ${where} is labelled for '${labelled.shard}' without the ring's seal: `
        + 'the label is not the ring\'s, and no replica runs the object for it.');
    }
    return {
      resource, namespace: metadata.namespace, name: metadata.name ?? '', uid: metadata.uid,
      position: positionOf(placementKey(body)), placement, sealed, version: metadata.resourceVersion,
    };
  }

  /** The placement as the assigner decides on it: sealed for a former incarnation of its member, it is nobody's. */
  #current(tracked: Tracked): Placement {
    const { placement, sealed } = tracked;
    if (sealed?.state !== 'assigned' || placement.shard === undefined) return placement;
    const incarnation = this.#members.incarnationOf(sealed.member);
    return incarnation !== undefined && incarnation !== sealed.incarnation ? { shard: undefined, draining: false }
      : placement;
  }

  /** The living member the object of this uid is sealed to now, as its children follow it; else undefined. */
  #holderOf(uid: string): string | undefined {
    const tracked = this.#listed ? this.#objects.get(uid) : undefined;
    if (!tracked || tracked.sealed?.state !== 'assigned') return undefined;
    const member = this.#current(tracked).shard === undefined ? undefined : tracked.sealed.member;
    return member !== undefined && this.#alive.has(member) ? member : undefined;
  }

  /** Decides where the object goes, and writes it (one write per object at a time). */
  #decide(key: string): void {
    if (!this.#listed) return;
    if (this.#writing.has(key)) { this.#again.add(key); return; }
    const tracked = this.#objects.get(key);
    if (!tracked) return;
    const move = decideMove(this.#current(tracked), this.#ring.ownerAt(tracked.position), this.#alive);
    if (move.kind === 'stay') return;
    const write = this.#writeOf(tracked, move);
    if (!write) return;
    this.#writing.add(key);
    void this.#write(key, tracked, write).finally(() => {
      this.#writing.delete(key);
      if (this.#again.delete(key)) this.#decide(key);
    });
  }

  /** The labels and the seal that a move writes, and the object as it is once written. */
  #writeOf(tracked: Tracked, move: Exclude<Move, { kind: 'stay' }>): Write | undefined {
    const { seals, settings: { ring } } = this.#options;
    if (move.kind === 'drain') {
      const placement = { ...tracked.placement, draining: true };
      const labels = { [drainLabel(ring)]: DRAIN_VALUE };
      return { labels, placement, sealed: tracked.sealed, what: 'drained', reason: 'drain' };
    }
    const sealed = move.kind === 'assign' ? this.#assignment(tracked, move.to) : tracked.sealed;
    if (!sealed || !tracked.uid) return undefined;
    const labels = move.kind === 'assign'
      ? { [shardLabel(ring)]: sealed.member, [drainLabel(ring)]: null }
      : { [shardLabel(ring)]: sealed.member };
    const annotations = { [sealAnnotation(ring)]: seals.sealAssignment(tracked.uid, sealed) };
    const draining = move.kind === 'restore' && tracked.placement.draining;
    const placement = { shard: sealed.member, draining, verified: true, intact: true };
    if (move.kind !== 'assign') return { labels, annotations, placement, sealed, what: `put back on ${sealed.member}` };
    // A failover is a placement after a member that is gone, whether its labels still name it or its
    // process sealed a release on the way out; one after a drain to a live member is a placement.
    const previous = tracked.placement.shard ?? tracked.sealed?.member;
    const reason = previous === undefined || this.#alive.has(previous) ? 'assign' : 'failover';
    return { labels, annotations, placement, sealed, what: `assigned to ${sealed.member}`, reason, follow: true };
  }

  /** A new assignment to `to`, for its current incarnation, with a sequence newer than any before it. */
  #assignment(tracked: Tracked, to: string): Assignment | undefined {
    const incarnation = this.#members.incarnationOf(to);
    if (incarnation === undefined) return undefined;
    const sequence = Math.max((tracked.sealed?.sequence ?? 0) + 1, this.#now());
    return { state: 'assigned', member: to, incarnation, sequence };
  }

  async #write(key: string, tracked: Tracked, write: Write): Promise<void> {
    const { client, logger, settings } = this.#options;
    const where = `${tracked.namespace ? `${tracked.namespace}/` : ''}${tracked.name}`;
    try {
      // Its children first, while nobody runs it: the member it goes to finds them in its own watch.
      if (write.follow && tracked.uid) await this.#children.follow(tracked.uid, write.sealed!.member);
      const { labels, annotations } = write;
      const patch = { metadata: { resourceVersion: tracked.version, labels, ...(annotations ? { annotations } : {}) } };
      const ref = { namespace: tracked.namespace, name: tracked.name };
      const version = await patchObjectVersion(client, tracked.resource, ref, patch);
      const { placement, sealed } = write;
      if (this.#objects.get(key) === tracked) this.#objects.set(key, { ...tracked, placement, sealed, version });
      if (tracked.uid) this.#children.ownerChanged(tracked.uid);
      if (write.reason) this.#options.moved?.(write.reason);
      logger.debug(`The object ${where} is ${write.what}.`);
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return; // its newer state (or its deletion) decides
      logger.warning(`Could not place the object ${where}: ${thrownText(error)}; trying again soon.`);
      const retry = setTimeout(() => this.#decide(key), settings.retryPeriod * 1000);
      retry.unref?.();
    }
  }
}

/** What one move writes. */
interface Write {
  labels: Record<string, string | null>;
  annotations?: Record<string, string>;
  placement: Placement;
  sealed: Assignment | undefined;
  what: string;
  /** Why the object moves, for the ring's metrics; none when a forged label is put back. */
  reason?: RingMoveReason;
  /** An assignment: the object's children are labelled for its member before it is written. */
  follow?: boolean;
}

/**
 * Whether a sealed record seen on an object follows the last one this assigner knows of it: a newer
 * assignment, the same one, or its release by its member. An older one put back is not the ring's now.
 */
function follows(opened: Assignment, known: Assignment | undefined): boolean {
  if (!known || opened.sequence > known.sequence) return true;
  if (opened.sequence < known.sequence) return false;
  if (opened.state === 'released') return opened.member === known.member;
  return known.state === 'assigned' && opened.member === known.member && opened.incarnation === known.incarnation;
}
