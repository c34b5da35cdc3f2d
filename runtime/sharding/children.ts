/**
 * The ring's children: the objects of the resources that reconcilers own (`owns`), which follow
 * their controller owner. Each replica's watches of them select its own member's label, as the
 * served objects' do (`pipeline/`), so that a replica lists and watches only its owners' children;
 * this keeps that label on each child equal to the member its owner is sealed to.
 *
 * It is the assigner's work, not the replicas': the assigner is the one that knows each move (from
 * whom, to whom) as it makes it, and it watches every owner already. A replica taking an owner over
 * would have to list the other members' children to find the owner's (no field selects children by
 * owner), at every takeover; the assigner follows them with one watch of their metadata.
 *
 * - A child's label is written only when it differs from its owner's member: a child created with
 *   the owner's labels (`adopt()` copies them) costs no write. Children need no seal: they decide
 *   nothing (the owner's seal decides who runs the owner), so a label written by anyone else moves
 *   nothing but the child's visibility, and is put back.
 * - An owner whose member is not known (not listed yet, not sealed, released, or sealed to a member
 *   gone) leaves its children as they are: nobody runs it, or the replica that does still sees them.
 * - Before an owner is assigned (placed anew), its children are relabelled for the member it goes to:
 *   they reach that member's watch while nobody runs the owner (its previous member has let it go,
 *   or is gone), so that the new holder finds them in its own watch, and its first runs see them.
 *   Each child's arrival there queues a run of its owner as every change of a child does.
 * - Every write is guarded by the child's resourceVersion, as the assigner's are: a write based on
 *   an older state fails (409), and the newer state's event decides again.
 */
import { isConflict, isNotFound, keyOf, patchObjectVersion, watchStream, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { controllerOf } from './decisions.ts';
import { shardLabel } from './ring-labels.ts';

export interface ChildrenOptions {
  client: KubeClient;
  ring: string;
  /** Seconds before a write that failed is tried again. */
  retryPeriod: number;
  logger: Logger;
  /** The living member the owner of this uid is sealed to now; undefined: its children stay as they are. */
  holderOf(uid: string): string | undefined;
}

/** What is kept of one child: where it is, its controller's uid, its label, and its version. */
interface Child {
  resource: ResourceDescriptor;
  namespace: string | undefined;
  name: string;
  owner: string;
  shard: string | undefined;
  version: string | undefined;
}

const DONE: Promise<void> = Promise.resolve();

export class RingChildren {
  readonly #options: ChildrenOptions;
  readonly #children = new Map<string, Child>();
  /** Child keys by their controller's uid. */
  readonly #byOwner = new Map<string, Set<string>>();
  /** The owners being assigned, and to whom: their children go there first. */
  readonly #moving = new Map<string, string>();
  /** The children with a write in flight (done when it and any decision after it are), and those to decide again. */
  readonly #writing = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();

  constructor(options: ChildrenOptions) {
    this.#options = options;
  }

  /** Watches one owned resource's children (metadata only) in one namespace, or cluster-wide. */
  async watch(resource: ResourceDescriptor, namespace: string | null, keys: Set<string>, signal: AbortSignal) {
    const options = { namespace, signal, metadataOnly: true };
    for await (const event of watchStream<KubeObject>(this.#options.client, resource, options)) {
      if (!('object' in event)) continue;
      const key = keyOf(event.object);
      if (event.type === 'DELETED') { keys.delete(key); this.forget(key); continue; }
      keys.add(key);
      if (this.#track(key, resource, event.object)) void this.#decide(key);
    }
  }

  /** A child gone from the watch (deleted, or the watch ended). */
  forget(key: string): void {
    const child = this.#children.get(key);
    if (!child) return;
    this.#children.delete(key);
    this.#unfile(key, child.owner);
  }

  /** The owner's placement may have changed: its children are decided again. */
  ownerChanged(uid: string): void {
    for (const key of this.#byOwner.get(uid) ?? []) void this.#decide(key);
  }

  /** The ring's members changed: every child is decided again. */
  refresh(): void {
    for (const key of this.#children.keys()) void this.#decide(key);
  }

  /**
   * Relabels the owner's children for the member it is about to be assigned to, and waits for the
   * writes (a write that fails is logged and tried again later: the assignment does not wait for it).
   */
  async follow(uid: string, member: string): Promise<void> {
    this.#moving.set(uid, member);
    try {
      await Promise.all([...this.#byOwner.get(uid) ?? []].map((key) => this.#decide(key)));
    } finally {
      if (this.#moving.get(uid) === member) this.#moving.delete(uid);
    }
  }

  /** Keeps what placing needs of a child; false if it has no controller (nobody's child: not followed). */
  #track(key: string, resource: ResourceDescriptor, body: KubeObject): boolean {
    const metadata = body.metadata ?? {};
    const owner = controllerOf(body);
    const previous = this.#children.get(key);
    if (previous && previous.owner !== owner) this.#unfile(key, previous.owner);
    if (owner === undefined) { this.#children.delete(key); return false; }
    const shard = metadata.labels?.[shardLabel(this.#options.ring)];
    this.#children.set(key, {
      resource, namespace: metadata.namespace, name: metadata.name ?? '', owner,
      shard: typeof shard === 'string' && shard ? shard : undefined, version: metadata.resourceVersion,
    });
    let siblings = this.#byOwner.get(owner);
    if (!siblings) this.#byOwner.set(owner, siblings = new Set());
    siblings.add(key);
    return true;
  }

  #unfile(key: string, owner: string): void {
    const siblings = this.#byOwner.get(owner);
    siblings?.delete(key);
    if (siblings && !siblings.size) this.#byOwner.delete(owner);
  }

  /** Writes the child's label if it differs from its owner's member; one write per child at a time. */
  #decide(key: string): Promise<void> {
    const writing = this.#writing.get(key);
    if (writing) { this.#again.add(key); return writing; }
    const child = this.#children.get(key);
    if (!child) return DONE;
    const member = this.#moving.get(child.owner) ?? this.#options.holderOf(child.owner);
    if (member === undefined || member === child.shard) return DONE;
    const written = this.#write(key, child, member).then(() => {
      this.#writing.delete(key);
      return this.#again.delete(key) ? this.#decide(key) : undefined;
    });
    this.#writing.set(key, written);
    return written;
  }

  async #write(key: string, child: Child, member: string): Promise<void> {
    const { client, ring, logger, retryPeriod } = this.#options;
    const where = `${child.resource.plural} ${child.namespace ? `${child.namespace}/` : ''}${child.name}`;
    try {
      const patch = { metadata: { resourceVersion: child.version, labels: { [shardLabel(ring)]: member } } };
      const version = await patchObjectVersion(client, child.resource, child, patch);
      if (this.#children.get(key) === child) this.#children.set(key, { ...child, shard: member, version });
      logger.debug(`The child ${where} follows its owner to ${member}.`);
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return; // its newer state (or its deletion) decides
      logger.warning(`Could not label the child ${where} for its owner's member: ${thrownText(error)}; `
        + 'trying again soon.');
      const retry = setTimeout(() => void this.#decide(key), retryPeriod * 1000);
      retry.unref?.();
    }
  }
}
