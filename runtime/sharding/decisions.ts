/**
 * What the assigner does with one object, as a pure function of where the object is, where the
 * ring wants it, and which members are alive:
 *
 * - not assigned, or assigned to a member that is gone (released its Lease, or let it expire):
 *   assigned directly to where the ring wants it (nobody is handling it);
 * - assigned to a living member that the ring no longer wants: drained (that member finishes what
 *   it does with the object, stops its daemons and timers, and removes both labels);
 * - draining: nothing until the member acknowledges (the labels go, and it is assigned anew) or
 *   is gone. A drain is never withdrawn: the member may be acknowledging it at that very moment;
 * - assigned by a label without the ring's seal (written by someone else, or sealed for another
 *   incarnation of a living member's name while this assigner has no valid seal of it): drained, so
 *   that the member, which does not run an object without a valid seal, says so by sealing a release;
 * - sealed, but its label or seal no longer as the ring wrote them (relabelled, or an older seal put
 *   back): restored as the ring wrote them. Nobody else runs it meanwhile: no other member has a seal;
 * - where the ring wants it: nothing.
 * An empty ring assigns nothing: the objects wait for a member.
 */
import type { KubeObject } from '../structs/resources.ts';

export interface Placement {
  /** The member the object is assigned to, if any. */
  shard: string | undefined;
  draining: boolean;
  /** False: `shard` is only a label, not sealed by the ring (or its seal was lost). */
  verified?: boolean;
  /** False: the label or the seal is not as the ring wrote them, which the assigner remembers. */
  intact?: boolean;
}

export type Move =
  | { kind: 'stay' }
  | { kind: 'assign'; to: string }
  | { kind: 'drain' }
  | { kind: 'restore' };

const STAY: Move = Object.freeze({ kind: 'stay' });
const DRAIN: Move = Object.freeze({ kind: 'drain' });
const RESTORE: Move = Object.freeze({ kind: 'restore' });

export function decideMove(placement: Placement, wanted: string | undefined, alive: ReadonlySet<string>): Move {
  const { shard, draining } = placement;
  if (shard === undefined || !alive.has(shard)) return wanted === undefined ? STAY : { kind: 'assign', to: wanted };
  if (placement.verified === false) return draining ? STAY : DRAIN;
  if (placement.intact === false) return RESTORE;
  if (draining || shard === wanted || wanted === undefined) return STAY;
  return DRAIN;
}

/**
 * What an object is placed by: its controller's uid if it has a controller (a child goes where its
 * parent goes), else its own uid.
 */
export function placementKey(body: KubeObject): string {
  const metadata = body.metadata ?? {};
  return controllerOf(body) ?? metadata.uid ?? `${metadata.namespace ?? ''}/${metadata.name ?? ''}`;
}

/** The uid of the object's controller (its owner reference with `controller: true`), if it has one. */
export function controllerOf(body: KubeObject): string | undefined {
  const references: unknown = body.metadata?.ownerReferences;
  if (!Array.isArray(references)) return undefined;
  for (const reference of references as unknown[]) {
    if (!reference || typeof reference !== 'object') continue;
    const { controller, uid } = reference as Record<string, unknown>;
    if (controller === true && typeof uid === 'string' && uid) return uid;
  }
  return undefined;
}
