/**
 * A replica's side of the ring's seals, per object: whether an object is this replica's to run
 * (its label is not enough: the ring's seal must name this member, this process's incarnation, and
 * a sequence newer than any assignment of the object that this replica has let go), and the
 * acknowledgement of a drain (a release sealed by this member, with both labels removed).
 *
 * A drain label asks for the drain whatever its value: the acknowledgement reads the object afresh
 * and writes only if it is still labelled for this member and not sealed to another, guarded by
 * the resourceVersion it read (a conflict reads again).
 */
import {
  getObject, isConflict, isNotFound, patchObjectVersion, type KubeClient,
} from '../kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { drainLabel, placementOf, sealAnnotation, sealOf, shardLabel } from './ring-labels.ts';
import type { Assignment, RingSeals } from './seals.ts';

/** A replica's place in its ring, as its share of the objects needs it. */
export interface Tenure {
  readonly ring: string;
  readonly member: string;
  /** This process's incarnation in the ring: seals for another incarnation of the same name are void. */
  readonly incarnation: string;
  readonly seals: RingSeals;
}

/**
 * The sequences of the assignments this replica has let go, by object uid: an assignment sealed
 * earlier than one let go (a replayed older seal) is not a new one.
 */
export class LetGo {
  readonly #sequences = new Map<string, number>();

  record(uid: string | undefined, sequence: number | undefined): void {
    if (uid === undefined || sequence === undefined) return;
    this.#sequences.set(uid, Math.max(sequence, this.#sequences.get(uid) ?? 0));
  }

  /** Whether this sequence was let go already (or an older one than one let go). */
  covers(uid: string, sequence: number): boolean {
    return sequence <= (this.#sequences.get(uid) ?? -1);
  }

  /** The object is deleted: nothing of it can come back. */
  forget(uid: string | undefined): void {
    if (uid !== undefined) this.#sequences.delete(uid);
  }
}

/** The assignment sealed on the object if it is to this replica, now; else undefined. */
export function sealedHere(tenure: Tenure, body: KubeObject, letGo: LetGo): Assignment | undefined {
  const uid = body.metadata?.uid;
  const opened = tenure.seals.openAssignment(uid, sealOf(body, tenure.ring));
  if (!opened || !uid || opened.state !== 'assigned') return undefined;
  if (opened.member !== tenure.member || opened.incarnation !== tenure.incarnation) return undefined;
  return letGo.covers(uid, opened.sequence) ? undefined : opened;
}

/**
 * Whether the object is sealed for an earlier process of this member's name (this replica restarted):
 * no one else's write, and the assigner places it anew.
 */
export function sealedBefore(tenure: Tenure, body: KubeObject): boolean {
  const opened = tenure.seals.openAssignment(body.metadata?.uid, sealOf(body, tenure.ring));
  return opened?.member === tenure.member && opened.incarnation !== tenure.incarnation;
}

/** Whether the object asks this member to let it go: its label names this member, and a drain label is there. */
export function drainedHere(tenure: Tenure, body: KubeObject): boolean {
  const { shard, draining } = placementOf(body, tenure.ring);
  return draining && shard === tenure.member;
}

/** What the acknowledgement found: written, or nothing to acknowledge (gone, or assigned elsewhere since). */
export type Acknowledged = 'acknowledged' | 'moot';

/**
 * Acknowledges a drain: both labels removed and a release sealed, only if the object is still
 * labelled for this member and not sealed to another. Throws if the API fails (tried again later).
 */
export async function acknowledgeDrain(
  client: KubeClient, resource: ResourceDescriptor, ref: { namespace?: string; name: string }, tenure: Tenure,
): Promise<Acknowledged> {
  for (;;) {
    let found: KubeObject;
    try {
      found = await getObject(client, resource, ref);
    } catch (error) {
      if (isNotFound(error)) return 'moot';
      throw error;
    }
    const patch = release(tenure, found);
    if (!patch) return 'moot';
    try {
      await patchObjectVersion(client, resource, ref, patch);
      return 'acknowledged';
    } catch (error) {
      if (isNotFound(error)) return 'moot';
      if (!isConflict(error)) throw error; // changed since the read: read again
    }
  }
}

/** The patch that releases the object as this member, or undefined if it is not this member's to release. */
function release(tenure: Tenure, body: KubeObject): object | undefined {
  const { ring, member, incarnation, seals } = tenure;
  const metadata = body.metadata ?? {};
  if (placementOf(body, ring).shard !== member || !metadata.uid) return undefined;
  const opened = seals.openAssignment(metadata.uid, sealOf(body, ring));
  if (opened?.state === 'assigned' && opened.member !== member) return undefined;
  const sequence = opened?.member === member ? opened.sequence : 0;
  const seal = seals.sealAssignment(metadata.uid, { state: 'released', member, incarnation, sequence });
  return {
    metadata: {
      resourceVersion: metadata.resourceVersion,
      labels: { [shardLabel(ring)]: null, [drainLabel(ring)]: null },
      annotations: { [sealAnnotation(ring)]: seal },
    },
  };
}
