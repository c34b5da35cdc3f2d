/**
 * A replica's membership in a ring: a Lease of its own, labelled with the ring's name, created when
 * it joins, renewed every `retryPeriod`, and released (no holder) then deleted on a clean stop: the
 * assigner sees it released, so gone at once, and gives its objects to the others. Every write of
 * it carries the ring's seal of its holder and renewal time, by this process's incarnation
 * (`seals.ts`), which tells the assigner it from a Lease written by anyone else. A Lease deleted by
 * someone else takes the member out of the ring at once (its objects are drained); it is created
 * again at the next renewal, and the member is one again.
 * A replica that cannot renew for `renewDeadline` (shorter than the lease's duration) pauses itself
 * before the assigner may judge it dead and give its objects away, and lets them all go (`lost`):
 * they may be given away meanwhile. It resumes once it renews again, and lists its share afresh.
 * Until the Lease is first held, the replica is paused too: it handles nothing before it is a member.
 */
import type { ShardingSettings } from '../config/settings.ts';
import {
  createObject, deleteObject, getObject, isAlreadyExists, isConflict, isNotFound, replaceObject, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import { Leases, microTime, type Lease } from '../structs/builtins.ts';
import { thrownText } from '../structs/errors.ts';
import type { Toggle, ToggleSet } from '../structs/toggles.ts';
import { LEASE_SEAL_ANNOTATION, RING_LABEL } from './ring-labels.ts';
import { newIncarnation, type RingSeals } from './seals.ts';

export interface MembershipOptions {
  client: KubeClient;
  settings: ShardingSettings & { ring: string };
  /** The Leases' namespace. */
  namespace: string;
  /** This replica's name in the ring: its Lease's name. */
  member: string;
  identity: string;
  /** The ring's key: each renewal is sealed, so that the assigner knows it from a Lease written by anyone else. */
  seals: RingSeals;
  /** The operator's pause set: "not a member" is a reason to pause. */
  paused: ToggleSet;
  /** Told when the membership is lost (not renewed in time): the replica must let its objects go. */
  lost?: () => void;
  logger: Logger;
  now?: () => number;
}

export class RingMembership {
  readonly #options: MembershipOptions;
  readonly #toggle: Toggle;
  readonly #stop = new AbortController();
  readonly #now: () => number;
  #done: Promise<void> = Promise.resolve();
  #lease: Lease | undefined;
  /** This process's incarnation: the assignments sealed for it are void for any other process of the same name. */
  readonly incarnation = newIncarnation();

  constructor(options: MembershipOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#toggle = options.paused.make(`not a member of the ring '${options.settings.ring}'`, true);
  }

  /** Whether this replica holds its Lease (and so may handle its objects). */
  get member(): boolean { return !this.#toggle.on; }

  start(): void {
    this.#done = this.#run().catch((error: unknown) => this.#options.logger.error('Ring membership failed.', error));
  }

  /** Leaves the ring: stops renewing, releases the Lease and deletes it, so that the objects move at once. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
    this.#toggle.turn(true);
    const lease = this.#lease;
    this.#lease = undefined; // left once
    if (!lease) return;
    const { client, namespace, member, logger } = this.#options;
    try {
      // Released first: its deletion then carries no holder, which tells the assigner it is a clean
      // stop, not a Lease deleted by someone else while its replica lives on.
      const spec = { ...lease.spec, holderIdentity: undefined };
      await replaceObject(client, Leases, { ...lease, metadata: this.#sealed(lease.metadata, spec), spec })
        .catch((error: unknown) => {
          if (isNotFound(error)) throw error;
          logger.warning(`Could not release the lease ${this.#where()}: ${thrownText(error)}; `
            + 'its objects move to the others once it would have expired.');
        });
      await deleteObject(client, Leases, { namespace, name: member });
      logger.info(`Left the ring '${this.#options.settings.ring}': the lease '${namespace}/${member}' is deleted.`);
    } catch (error) {
      if (!isNotFound(error)) logger.warning(`Could not delete the lease ${this.#where()}: ${thrownText(error)}`);
    }
  }

  /** Renews every `retryPeriod`; pauses after `renewDeadline` without a renewal, resumes on the next. */
  async #run(): Promise<void> {
    const { settings, logger } = this.#options;
    const signal = this.#stop.signal;
    let deadline = this.#now() + settings.renewDeadline * 1000;
    do {
      // Cut at the deadline while it is ahead; past it (paused), each attempt has a deadline's time of its
      // own, or none would ever be given long enough to succeed again.
      const left = deadline - this.#now();
      const cut = AbortSignal.any([signal, AbortSignal.timeout(left > 0 ? left : settings.renewDeadline * 1000)]);
      const held = await this.#hold(cut).catch((error: unknown) => {
        if (!signal.aborted) logger.warning(`Could not renew the ring's lease ${this.#where()}: ${thrownText(error)}`);
        return false;
      });
      if (signal.aborted) return;
      if (held) {
        deadline = this.#now() + settings.renewDeadline * 1000;
        if (this.#toggle.on) logger.info(`Joined the ring '${settings.ring}' as ${this.#options.member}.`);
        this.#toggle.turn(false);
      } else if (this.#now() >= deadline && !this.#toggle.on) {
        logger.warning(`The ring's lease ${this.#where()} is not renewed: processing is paused until it is.`);
        this.#toggle.turn(true);
        this.#options.lost?.();
      }
    } while (await sleep(settings.retryPeriod, signal));
  }

  /** One attempt to create or renew the Lease; false on a conflict (tried again next time). */
  async #hold(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, member } = this.#options;
    let lease: Lease | undefined;
    try {
      lease = await getObject(client, Leases, { namespace, name: member }, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (!lease && this.#lease) {
      this.#options.logger.warning(`The ring's lease ${this.#where()} was deleted, not by this replica: `
        + 'it is created again.');
    }
    const spec = this.#spec(lease);
    const body: Lease = {
      metadata: this.#sealed({ ...lease?.metadata, name: member, namespace, labels: this.#labels(lease) }, spec),
      spec,
    };
    try {
      this.#lease = lease
        ? await replaceObject(client, Leases, body, { signal })
        : await createObject(client, Leases, body, { signal });
      return true;
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error)) return false;
      throw error;
    }
  }

  /** The metadata with the seal of this state of the Lease (its holder and renewal, by this incarnation). */
  #sealed(metadata: Lease['metadata'], spec: NonNullable<Lease['spec']>): Lease['metadata'] {
    const { member, seals } = this.#options;
    const seal = seals.sealLease({
      member, holder: spec.holderIdentity ?? '', renewTime: spec.renewTime ?? '', incarnation: this.incarnation,
    });
    return { ...metadata, annotations: { ...metadata?.annotations, [LEASE_SEAL_ANNOTATION]: seal } };
  }

  #labels(lease: Lease | undefined): Record<string, string> {
    return { ...lease?.metadata?.labels, [RING_LABEL]: this.#options.settings.ring };
  }

  #spec(lease: Lease | undefined): NonNullable<Lease['spec']> {
    const { identity, settings } = this.#options;
    const now = microTime(this.#now());
    const ours = lease?.spec?.holderIdentity === identity && this.#lease !== undefined;
    return {
      ...lease?.spec, holderIdentity: identity, leaseDurationSeconds: Math.ceil(settings.leaseDuration),
      acquireTime: ours ? lease?.spec?.acquireTime ?? now : now, renewTime: now,
    };
  }

  #where(): string {
    return `'${this.#options.namespace}/${this.#options.member}'`;
  }
}
