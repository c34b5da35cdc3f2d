/**
 * The ring's members as the assigner judges them (`assigner.ts`): by their sealed renewals, never by
 * the Leases' own fields. Each replica's own side of it, its Lease, is `membership.ts`.
 *
 * - A member is a Lease with the ring's label and the ring's seal over its holder and renewal: a
 *   Lease without a valid seal (written by anyone but a replica of the ring) is no member, and
 *   logged once per version. A member is alive while its sealed renewal advances: its expiry is
 *   judged by our own clock and `settings.sharding.leaseDuration`, from when we last saw a newer
 *   sealed renewal. Before a member is judged dead, its Lease is read afresh: a watch that has
 *   silently stopped bringing changes must not make a living member look dead.
 * - A Lease released by its own process (no holder, sealed: a clean stop, which then deletes it)
 *   is a member gone at once. A Lease deleted otherwise leaves the ring at once (nothing more is
 *   placed on it); its objects are drained, and moved directly once its last renewal is older than
 *   `leaseDuration` (its process, if alive, creates its Lease again and is a member again).
 * - The last sealed renewal of each member judged gone is remembered: written again, it does not
 *   bring the member back.
 */
import type { ShardingSettings } from '../config/settings.ts';
import { getObject, isNotFound, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { Leases, type Lease } from '../structs/builtins.ts';
import { thrownText } from '../structs/errors.ts';
import { LEASE_SEAL_ANNOTATION } from './ring-labels.ts';
import type { RingSeals } from './seals.ts';

export interface MembersOptions {
  client: KubeClient;
  settings: ShardingSettings & { ring: string };
  /** The Leases' namespace. */
  namespace: string;
  /** The ring's key: only the renewals it seals are believed. */
  seals: RingSeals;
  logger: Logger;
  now: () => number;
  /** Told when a judgement may have changed without a Lease's event: a fresh read ended, or a member expired. */
  changed: () => void;
}

/** The members judged now: those placed on (alive, in the ring), and those alive (in the ring, or left it). */
export interface Judgement {
  placing: string[];
  alive: Set<string>;
}

/** A member's last sealed renewal, and when we saw it by our clock. */
interface Seen {
  at: number;
  renewTime: string;
  incarnation: string;
  /** Its Lease was deleted: out of the ring; its objects are drained, or moved once it has expired. */
  left?: boolean;
  /** Expired, and read afresh without a newer renewal: dead. */
  confirmed?: boolean;
  /** The fresh read is under way. */
  confirming?: boolean;
}

export class RingMembers {
  readonly #options: MembersOptions;
  readonly #members = new Map<string, Seen>();
  /**
   * The last sealed renewal of each member judged gone (by name; as few as the replicas started while
   * this process runs): that renewal, written again, does not bring it back.
   */
  readonly #gone = new Map<string, Seen>();
  /** The Leases logged as not sealed by the ring, by their version: each logged once. */
  readonly #warned = new Map<string, string | undefined>();
  #expiry: NodeJS.Timeout | undefined;

  constructor(options: MembersOptions) {
    this.#options = options;
  }

  /** The incarnation of a member known now (alive, left, or being confirmed), if any. */
  incarnationOf(name: string): string | undefined {
    return this.#members.get(name)?.incarnation;
  }

  /** A member's Lease is deleted: out of the ring at once, its objects drained (or moved once it expires). */
  leave(name: string): void {
    const seen = this.#members.get(name);
    if (seen) seen.left = true;
  }

  /** A member's Lease as the watch brings it. */
  observe(name: string, lease: Lease): void {
    const renewal = this.#renewal(name, lease);
    const seen = this.#members.get(name);
    if (renewal === 'released') { if (seen) this.#bury(name, seen); }
    else if (renewal) this.#members.set(name, renewal);
  }

  /**
   * The watch of the members ended: no expiry is judged until they are listed again. What is known
   * of them is kept: a member whose Lease is gone when they are listed again is judged by its last
   * renewal (gone once that is `leaseDuration` old and its Lease is read as absent), never at once,
   * since its replica may be running its objects and creating its Lease again at that very moment.
   */
  unlisted(): void {
    clearTimeout(this.#expiry);
  }

  /**
   * Judges the members now: the expired ones are read afresh (alive until the read says) or, once
   * confirmed dead or left, gone. `changed` is told at the next expiry.
   */
  judge(): Judgement {
    clearTimeout(this.#expiry);
    const now = this.#options.now();
    const duration = this.#options.settings.leaseDuration * 1000;
    const placing: string[] = [], alive = new Set<string>();
    let soonest = Infinity;
    for (const [name, seen] of this.#members) {
      const expires = seen.at + duration;
      if (expires > now) soonest = Math.min(soonest, expires);
      else if (seen.left || seen.confirmed) { this.#bury(name, seen); continue; }
      else this.#confirm(name, seen); // alive until the read says
      alive.add(name);
      if (!seen.left) placing.push(name);
    }
    if (soonest !== Infinity) {
      this.#expiry = setTimeout(() => this.#options.changed(), soonest - now + 1);
      this.#expiry.unref?.();
    }
    return { placing, alive };
  }

  /**
   * What a Lease says of its member: a renewal newer than the last seen, its release by its own
   * process, or nothing (not sealed by the ring, or no newer renewal: a replayed or touched Lease).
   */
  #renewal(name: string, lease: Lease): Seen | 'released' | undefined {
    const holder = lease.spec?.holderIdentity ?? '', renewTime = lease.spec?.renewTime ?? '';
    const incarnation = this.#options.seals.openLease(
      { member: name, holder, renewTime }, lease.metadata?.annotations?.[LEASE_SEAL_ANNOTATION],
    );
    if (incarnation === undefined) { this.#warnUnsealed(name, lease); return undefined; }
    this.#warned.delete(name);
    const seen = this.#members.get(name) ?? this.#gone.get(name);
    // Released by the incarnation known now, at its last renewal or later: an older release written again is none.
    if (!holder) return seen?.incarnation === incarnation && renewTime >= seen.renewTime ? 'released' : undefined;
    // Renewal times only advance, also from one incarnation of a name to the next (the microseconds'
    // text sorts as the time): an older renewal written again, of any incarnation, is none.
    if (seen && renewTime <= seen.renewTime) return undefined;
    // Never seen (a new assigner, or a new member): a renewal older than a lease's duration twice over
    // by our clock is an old one written again, not a member alive now (the nodes' clocks agree that well).
    const age = this.#options.now() - Date.parse(renewTime);
    if (!seen && !(age < 2 * this.#options.settings.leaseDuration * 1000)) return undefined;
    return { at: this.#options.now(), renewTime, incarnation };
  }

  #warnUnsealed(name: string, lease: Lease): void {
    const version = lease.metadata?.resourceVersion;
    if (this.#warned.has(name) && this.#warned.get(name) === version) return;
    this.#warned.set(name, version);
    const { logger, namespace } = this.#options;
    logger.warning(`The lease '${namespace}/${name}' has the ring's label but not the ring's seal: `
      + 'it is not a member (written by someone other than a replica of the ring).');
  }

  /** Reads an expired member's Lease: renewed since, it is alive (seen now); else (or absent) dead. */
  #confirm(name: string, seen: Seen): void {
    if (seen.confirming) return;
    seen.confirming = true;
    const { client, namespace, settings, logger, changed } = this.#options;
    const read = getObject(client, Leases, { namespace, name }).then((lease) => this.#renewal(name, lease));
    read.catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error))).then((renewal) => {
      seen.confirming = false;
      if (this.#members.get(name) !== seen) return; // seen changing meanwhile, or gone
      if (renewal === 'released') this.#bury(name, seen);
      else if (renewal) this.#members.set(name, renewal);
      else seen.confirmed = true;
      changed();
    }, (error: unknown) => {
      seen.confirming = false;
      logger.debug(`Could not read the lease '${name}': ${thrownText(error)}; trying again soon.`);
      const retry = setTimeout(changed, settings.retryPeriod * 1000);
      retry.unref?.();
    });
  }

  #bury(name: string, seen: Seen): void {
    this.#members.delete(name);
    this.#gone.set(name, seen);
  }
}
