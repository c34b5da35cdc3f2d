/**
 * A ring replica's share of one resource's objects (`sharding/`), between the queue and the
 * processing. The replica watches only the objects assigned to it; what this adds:
 *
 * - An object that leaves the watch without being deleted (assigned elsewhere: the server says
 *   DELETED when an object stops matching a label selector, with its last state that matched) is
 *   only forgotten: its daemons and timers stopped as for a pause, its memories and index entries
 *   dropped. No handler runs, no finalizer is touched: it is another replica's now. A real deletion
 *   is processed as always. The event cannot tell them apart: an object let go here has left; one
 *   deleted without finalizers is deleted; any other is read (absent, or another of its name:
 *   deleted; assigned elsewhere: left; assigned here after all: its current state is processed).
 * - An object asked to move away (the drain label) is let go: the cycle in flight for it has ended
 *   (the queue runs one per object at a time), its daemons and timers are stopped and have exited,
 *   and then both labels are removed, only if they still say so (a JSON patch with tests).
 * - Only the objects seen in the watch and not let go since are this replica's: what the queue
 *   still holds for another one (a wake-up of delayed handlers, a daemon's requeue) is dropped. A
 *   replica that lost its membership (its Lease not renewed in time) lets every object go: the
 *   assigner may give them away; the watch lists its share again when it is a member again.
 */
import {
  getObject, isConflict, isInvalid, isNotFound, patchObject, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { thrownText } from '../structs/errors.ts';
import type { OperatorIndexers } from '../indices/indexers.ts';
import type { RawEvent } from '../actions/scope.ts';
import type { Memories } from '../processing/memories.ts';
import type { Spawner } from '../daemons/spawning.ts';
import { acknowledgement, memberSelector, placementOf } from '../sharding/ring-labels.ts';

/** Which ring this replica is a member of, and under which name. */
export interface Membership {
  readonly ring: string;
  readonly member: string;
  /** Seconds before an acknowledgement that failed is tried again. */
  readonly retryPeriod: number;
}

/** The parts of a pipeline that an object's release touches. */
export interface ShareParts {
  readonly client: KubeClient;
  resource(): ResourceDescriptor;
  readonly spawner: Spawner | undefined;
  readonly memories: Memories;
  readonly indexers: OperatorIndexers;
  readonly logger: Logger;
  enqueue(key: string, request: RawEvent): void;
}

type Handle = (event: RawEvent) => Promise<void>;

export class RingShare {
  /** The label selector of the replica's watches. */
  readonly selector: string;
  readonly #membership: Membership;
  readonly #parts: ShareParts;
  /** The objects seen in the watch and not let go since: this replica's share, as far as it knows. */
  readonly #current = new Set<string>();

  constructor(membership: Membership, parts: ShareParts) {
    this.#membership = membership;
    this.#parts = parts;
    this.selector = memberSelector(membership.ring, membership.member);
  }

  /** An event from the watch: unless it is the object's departure, the object is this replica's (again). */
  seen(key: string, event: RawEvent): void {
    if (event.type !== 'DELETED') this.#current.add(key);
  }

  /** The membership is lost: every object is let go here (the watch lists them again on rejoining). */
  async releaseAll(): Promise<void> {
    const keys = [...this.#current];
    this.#current.clear();
    await Promise.all(keys.map((key) => this.#release(key)));
  }

  /** Processes one event of the queue by `handle`, or lets the object go. */
  async process(key: string, event: RawEvent, handle: Handle): Promise<void> {
    const { ring, member } = this.#membership;
    if (event.type === 'DELETED') {
      const fate = await this.#fate(key, event);
      if (fate === 'deleted') return handle(event);
      if (fate !== 'departed') return handle({ kind: 'event', type: 'MODIFIED', object: fate });
      await this.#release(key);
      this.#current.delete(key);
      this.#parts.logger.forObject(event.object).debug(`The object is assigned elsewhere in the ring '${ring}'.`);
      return;
    }
    const { shard, draining } = placementOf(event.object, ring);
    if (shard === member && draining) return this.#drain(key, event);
    if (!this.#current.has(key) || shard !== member) return; // a late re-processing of an object let go
    return handle(event);
  }

  /** Whether a DELETED is a deletion or a departure, or (assigned here after all) the object as it is now. */
  async #fate(key: string, event: RawEvent): Promise<'deleted' | 'departed' | RawEvent['object']> {
    const { ring, member } = this.#membership;
    if (!this.#current.has(key)) return 'departed'; // let go here already
    const { namespace, name, uid, deletionTimestamp, finalizers } = event.object.metadata ?? {};
    if (deletionTimestamp && !finalizers?.length) return 'deleted';
    try {
      const found = await getObject(this.#parts.client, this.#parts.resource(), { namespace, name: name ?? '' });
      if (found.metadata?.uid !== uid) return 'deleted';
      return placementOf(found, ring).shard === member ? found : 'departed';
    } catch (error) {
      if (isNotFound(error)) return 'deleted';
      // Let go in doubt: if it was deleted, only its DELETED event handlers miss it.
      this.#parts.logger.debug(`Could not tell a deletion from a departure: ${thrownText(error)}`);
      return 'departed';
    }
  }

  /** Lets the object go and acknowledges its drain; tried again later if the acknowledgement fails. */
  async #drain(key: string, event: RawEvent): Promise<void> {
    const { ring, member, retryPeriod } = this.#membership;
    const { client, logger } = this.#parts;
    await this.#release(key);
    this.#current.delete(key);
    const { namespace, name } = event.object.metadata ?? {};
    const ops = acknowledgement(ring, member);
    try {
      await patchObject(client, this.#parts.resource(), { namespace, name: name ?? '' }, ops, { type: 'json' });
      logger.forObject(event.object).debug(`The object is let go for another member of the ring '${ring}'.`);
    } catch (error) {
      if (isInvalid(error) || isNotFound(error) || isConflict(error)) return; // assigned anew, or gone
      logger.forObject(event.object).warning(`Could not let the object go: ${thrownText(error)}; trying again.`);
      const retry = setTimeout(() => this.#parts.enqueue(key, { ...event, kind: 'retry' }), retryPeriod * 1000);
      retry.unref?.();
    }
  }

  /** Stops the object's daemons and timers (and waits for them), and forgets what is remembered of it. */
  async #release(key: string): Promise<void> {
    await this.#parts.spawner?.release(key);
    this.#parts.memories.forget(key);
    this.#parts.indexers.discardAll(key);
  }
}
