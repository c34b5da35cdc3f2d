/**
 * A ring replica's share of one resource's objects, between the queue and the processing (the
 * pipeline puts it there: `pipeline/pipeline.ts`). The replica watches only the objects assigned to it; what this adds:
 *
 * - An object that leaves the watch without being deleted (assigned elsewhere: the server says
 *   DELETED when an object stops matching a label selector, with its last state that matched) is
 *   only forgotten: its daemons and timers stopped as for a pause, its memories and index entries
 *   dropped. No handler runs, no finalizer is touched: it is another replica's now. A real deletion
 *   is processed as always. The event cannot tell them apart: an object let go here has left; one
 *   deleted without finalizers is deleted; any other is read (absent, or another of its name:
 *   deleted; assigned elsewhere: left; assigned here after all: its current state is processed).
 * - An object is run only on the ring's seal of its assignment to this replica (`sharding/tenure.ts`):
 *   a label written by anyone else is not a move; such an object is let go here (if it was held),
 *   not handled, and logged.
 * - An object asked to move away (the drain label, whatever its value) is let go: the cycle in
 *   flight for it has ended (the queue runs one per object at a time), its daemons and timers are
 *   stopped and have exited, and then both labels are removed and a release sealed, only if the
 *   object is still this replica's. A failed acknowledgement is logged and tried again, backing off.
 * - Only the objects seen in the watch and not let go since are this replica's: what the queue
 *   still holds for another one (a wake-up of delayed handlers, a daemon's requeue) is dropped. A
 *   replica that lost its membership (its Lease not renewed in time) lets every object go: the
 *   assigner may give them away; the watch lists its share again when it is a member again.
 */
import { getObject, isNotFound, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { thrownText } from '../structs/errors.ts';
import type { RawEvent } from '../actions/scope.ts';
import type { ObjectRelease } from '../actions/engines.ts';
import { memberSelector, sealAnnotation } from './ring-labels.ts';
import { LetGo, acknowledgeDrain, drainedHere, sealedBefore, sealedHere, type Tenure } from './tenure.ts';

/** Which ring this replica is a member of, under which name and incarnation, with the ring's key. */
export interface Membership extends Tenure {
  /** Seconds before an acknowledgement that failed is tried again (doubled at each failure, up to a minute). */
  readonly retryPeriod: number;
}

/** The longest wait between two attempts of an acknowledgement. */
const ACKNOWLEDGEMENT_BACKOFF_CAP = 60;

/** The parts of a pipeline that the share works with. */
export interface ShareParts {
  readonly client: KubeClient;
  resource(): ResourceDescriptor;
  /** Every engine's part of an object let go: its tasks stopped, its memories dropped. */
  readonly release: ObjectRelease;
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
  /** The assignments let go here: a replayed older seal of one of them does not bring it back. */
  readonly #letGo = new LetGo();
  /** Failed acknowledgements so far, by object: the next attempt waits longer. */
  readonly #attempts = new Map<string, number>();
  /** The objects logged as labelled here without the ring's seal, by the seal they carried: logged once. */
  readonly #unsealed = new Map<string, unknown>();

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
    const { ring } = this.#membership;
    if (event.type === 'DELETED') {
      this.#unsealed.delete(key);
      this.#attempts.delete(key);
      const fate = await this.#fate(key, event);
      if (fate === 'deleted') { this.#letGo.forget(event.object.metadata?.uid); return handle(event); }
      if (fate !== 'departed') return handle({ kind: 'event', type: 'MODIFIED', object: fate });
      await this.#release(key);
      this.#current.delete(key);
      this.#parts.logger.forObject(event.object).debug(`The object is assigned elsewhere in the ring '${ring}'.`);
      return;
    }
    if (drainedHere(this.#membership, event.object)) return this.#drain(key, event);
    if (!this.#current.has(key)) return; // a late re-processing of an object let go
    if (!sealedHere(this.#membership, event.object, this.#letGo)) return this.#refuse(key, event);
    this.#unsealed.delete(key);
    return handle(event);
  }

  /** Labelled here, but not sealed here by the ring: not run, let go if it was held, and logged once per seal. */
  async #refuse(key: string, event: RawEvent): Promise<void> {
    await this.#release(key);
    this.#current.delete(key);
    const seal = event.object.metadata?.annotations?.[sealAnnotation(this.#membership.ring)];
    if (this.#unsealed.has(key) && this.#unsealed.get(key) === seal) return;
    this.#unsealed.set(key, seal);
    const logger = this.#parts.logger.forObject(event.object);
    if (sealedBefore(this.#membership, event.object)) {
      logger.debug('The object is sealed for an earlier process of this replica: it waits to be assigned anew.');
      return;
    }
    logger.warning(`The object is labelled for this replica without the ring's seal of it: a label not written `
      + `by the ring '${this.#membership.ring}' is no move; it is not handled.`);
  }

  /** Whether a DELETED is a deletion or a departure, or (assigned here after all) the object as it is now. */
  async #fate(key: string, event: RawEvent): Promise<'deleted' | 'departed' | RawEvent['object']> {
    if (!this.#current.has(key)) return 'departed'; // let go here already
    const { namespace, name, uid, deletionTimestamp, finalizers } = event.object.metadata ?? {};
    if (deletionTimestamp && !finalizers?.length) return 'deleted';
    try {
      const found = await getObject(this.#parts.client, this.#parts.resource(), { namespace, name: name ?? '' });
      if (found.metadata?.uid !== uid) return 'deleted';
      return sealedHere(this.#membership, found, this.#letGo) ? found : 'departed';
    } catch (error) {
      if (isNotFound(error)) return 'deleted';
      // Let go in doubt: if it was deleted, only its DELETED event handlers miss it.
      this.#parts.logger.debug(`Could not tell a deletion from a departure: ${thrownText(error)}`);
      return 'departed';
    }
  }

  /** Lets the object go and acknowledges its drain; tried again later, backing off, if the acknowledgement fails. */
  async #drain(key: string, event: RawEvent): Promise<void> {
    const membership = this.#membership;
    const { client, logger } = this.#parts;
    await this.#release(key);
    this.#current.delete(key);
    this.#letGo.record(event.object.metadata?.uid, sealedHere(membership, event.object, this.#letGo)?.sequence);
    const { namespace, name } = event.object.metadata ?? {};
    try {
      const done = await acknowledgeDrain(client, this.#parts.resource(), { namespace, name: name ?? '' }, membership);
      this.#attempts.delete(key);
      if (done === 'acknowledged') {
        const why = `The object is let go for another member of the ring '${membership.ring}'.`;
        logger.forObject(event.object).debug(why);
      }
    } catch (error) {
      const attempts = (this.#attempts.get(key) ?? 0) + 1;
      this.#attempts.set(key, attempts);
      const delay = Math.min(membership.retryPeriod * 2 ** (attempts - 1), ACKNOWLEDGEMENT_BACKOFF_CAP);
      logger.forObject(event.object).warning(`Could not acknowledge the drain of the object (attempt ${attempts}): `
        + `${thrownText(error)}; trying again in ${delay} s.`);
      const retry = setTimeout(() => this.#parts.enqueue(key, { ...event, kind: 'retry' }), delay * 1000);
      retry.unref?.();
    }
  }

  /**
   * Stops the object's daemons and timers (and waits for them), and forgets what is remembered of
   * it but our last write: it may come back, older states of it first.
   */
  async #release(key: string): Promise<void> {
    await this.#parts.release.letGo(key);
  }
}
