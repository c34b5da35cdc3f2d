/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go elects: of several replicas,
 * the one holding the Lease processes; the others stand by and take it over once it expires.
 *
 * - A Lease is someone else's while it is renewed: its expiry is judged by our own clock, from when
 *   we last saw its record change, not from the holder's timestamps (clocks differ between nodes).
 * - The holder renews every `retryPeriod`; if it cannot renew for `renewDeadline` (shorter than the
 *   lease's duration), it pauses itself before the others may take over.
 * - A clean stop releases the Lease (no holder, a 1-second duration); the standbys watch the Lease
 *   and try at once when it changes, so one takes over without waiting for its next attempt.
 * - Writes are guarded by the resourceVersion: two replicas never both win the same Lease.
 */
import type { LeaderElectionSettings } from '../config/settings.ts';
import {
  createObject, getObject, isAlreadyExists, isConflict, isNotFound, replaceObject, watchStream, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import { microTime } from '../structs/builtins.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { Toggle, ToggleSet } from '../structs/toggles.ts';

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

export const Leases: ResourceDescriptor<Lease> = {
  group: 'coordination.k8s.io', version: 'v1', plural: 'leases', singular: 'lease', kind: 'Lease', scope: 'Namespaced',
};

export interface ElectionOptions {
  client: KubeClient;
  settings: LeaderElectionSettings & { name: string };
  namespace: string;
  identity: string;
  /** The operator's pause set: "not the leader" is a reason to pause. */
  paused: ToggleSet;
  logger: Logger;
  now?: () => number;
}

export class LeaderElection {
  readonly #options: ElectionOptions;
  readonly #toggle: Toggle;
  readonly #stop = new AbortController();
  readonly #now: () => number;
  /** The record as last seen, and when (by our clock): a holder's lease runs from there. */
  #observed: { version: string | undefined; holder: string; duration: number; at: number } | undefined;
  #lease: Lease | undefined;
  #done: Promise<void> = Promise.resolve();
  /** Aborted when the Lease changes: a standby's wait for its next attempt ends early. */
  #changed = new AbortController();

  constructor(options: ElectionOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#toggle = options.paused.make(`not the leader of lease ${this.#where()}`, true);
  }

  get leading(): boolean { return !this.#toggle.on; }

  start(): void {
    this.#done = this.#run().catch((error: unknown) => this.#options.logger.error('Leader election failed.', error));
    void this.#watch(this.#stop.signal);
  }

  /** Stops electing; releases the Lease if held, so that a standby takes over at once. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
    if (!this.leading) return;
    this.#toggle.turn(true);
    await this.#release().catch((error: unknown) => {
      this.#options.logger.warning(`Could not release the lease ${this.#where()}: ${thrownText(error)}`);
    });
  }

  async #run(): Promise<void> {
    const { settings, logger } = this.#options;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      if (!(await this.#acquire(signal))) return;
      logger.info(`Became the leader: lease ${this.#where()} is held by ${this.#options.identity}.`);
      this.#toggle.turn(false);
      await this.#renew(signal);
      if (signal.aborted) return;
      this.#toggle.turn(true);
      logger.warning(`Lost the lease ${this.#where()}: processing is paused until it is acquired again.`);
      if (!(await sleep(settings.retryPeriod, signal))) return;
    }
  }

  /** Tries every `retryPeriod` until the Lease is ours; false if stopped first. */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    const { settings, logger } = this.#options;
    let announced = false;
    while (!signal.aborted) {
      const outcome = await this.#tryToHold().catch((error: unknown) => {
        logger.warning(`Could not acquire the lease ${this.#where()}: ${thrownText(error)}`);
        return 'failed' as const;
      });
      if (outcome === 'held') return true;
      if (outcome === 'taken' && !announced) {
        logger.info(`The lease ${this.#where()} is held by ${this.#observed?.holder}: standing by.`);
        announced = true;
      }
      await sleep(settings.retryPeriod, signal, this.#changed.signal);
      if (this.#changed.signal.aborted) this.#changed = new AbortController();
    }
    return false;
  }

  /**
   * Watches the Lease for changes (a release, above all), so that a standby tries at once. Only a
   * shortcut: without it (a watch refused or failing), the attempts every `retryPeriod` still come.
   */
  async #watch(signal: AbortSignal): Promise<void> {
    const { client, namespace, settings } = this.#options;
    const options = { namespace, fieldSelector: `metadata.name=${settings.name}`, signal };
    try {
      for await (const event of watchStream<Lease>(client, Leases, options)) {
        if (event.type === 'MODIFIED' || event.type === 'DELETED') this.#changed.abort();
      }
    } catch (error) {
      if (!signal.aborted)
        this.#options.logger.debug(`Watching the lease ${this.#where()} failed: ${thrownText(error)}`);
    }
  }

  /**
   * Renews every `retryPeriod` while it succeeds within `renewDeadline`; returns when it does not.
   * Each attempt is cut at the deadline: a request that hangs must not keep a lapsed holder working.
   */
  async #renew(signal: AbortSignal): Promise<void> {
    const { settings, logger } = this.#options;
    let deadline = this.#now() + settings.renewDeadline * 1000;
    while (await sleep(settings.retryPeriod, signal)) {
      const cut = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, deadline - this.#now()))]);
      const outcome = await this.#tryToHold(cut).catch((error: unknown) => {
        if (!signal.aborted) logger.warning(`Could not renew the lease ${this.#where()}: ${thrownText(error)}`);
        return 'failed' as const;
      });
      if (outcome === 'held') deadline = this.#now() + settings.renewDeadline * 1000;
      else if (outcome === 'taken') return;
      if (this.#now() >= deadline) return;
    }
  }

  /** One attempt: 'held' if the Lease is ours now, 'taken' if another holds it, 'failed' on a conflict. */
  async #tryToHold(signal?: AbortSignal): Promise<'held' | 'taken' | 'failed'> {
    const { client, namespace, settings, identity } = this.#options;
    const ref = { namespace, name: settings.name };
    let lease: Lease;
    try {
      lease = await getObject(client, Leases, ref, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const fresh: Lease = { metadata: { name: settings.name, namespace }, spec: this.#spec(undefined) };
      return this.#write(() => createObject(client, Leases, fresh, { signal }));
    }
    this.#observe(lease);
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder && holder !== identity && !this.#expired()) return 'taken';
    return this.#write(() => replaceObject(client, Leases, { ...lease, spec: this.#spec(lease) }, { signal }));
  }

  async #write(write: () => Promise<Lease>): Promise<'held' | 'failed'> {
    try {
      this.#lease = await write();
      this.#observe(this.#lease);
      return 'held';
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error)) return 'failed'; // another replica was faster
      throw error;
    }
  }

  #spec(current: Lease | undefined): NonNullable<Lease['spec']> {
    const { identity, settings } = this.#options;
    const now = microTime(this.#now());
    const ours = current?.spec?.holderIdentity === identity;
    const transitions = current?.spec?.leaseTransitions ?? 0;
    return {
      holderIdentity: identity, leaseDurationSeconds: Math.ceil(settings.leaseDuration),
      acquireTime: ours ? current?.spec?.acquireTime ?? now : now, renewTime: now,
      leaseTransitions: ours || !current ? transitions : transitions + 1,
    };
  }

  #observe(lease: Lease): void {
    const version = lease.metadata?.resourceVersion;
    if (this.#observed?.version === version) return;
    const holder = lease.spec?.holderIdentity ?? '';
    const duration = lease.spec?.leaseDurationSeconds ?? this.#options.settings.leaseDuration;
    this.#observed = { version, holder, duration, at: this.#now() };
  }

  #expired(): boolean {
    const seen = this.#observed;
    return !seen || seen.at + seen.duration * 1000 <= this.#now();
  }

  async #release(): Promise<void> {
    const lease = this.#lease;
    if (!lease) return;
    const spec = { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(this.#now()) };
    await replaceObject(this.#options.client, Leases, { ...lease, spec });
    this.#options.logger.info(`Released the lease ${this.#where()}.`);
  }

  #where(): string {
    return `'${this.#options.namespace}/${this.#options.settings.name}'`;
  }
}
