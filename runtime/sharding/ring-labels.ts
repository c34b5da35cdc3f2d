/**
 * The ring's names on the wire: the label on its members' Leases, and the two labels on the served
 * objects that say which replica an object is assigned to and that it is asked to move away.
 * The objects' labels are per ring (the ring's name is the key's name part), so that two operators
 * sharding the same resource in two rings never read each other's assignments.
 *
 *   Lease     kopf.zalando.org/ring: RING                      a member of RING
 *   object    shard.kopf.zalando.org/RING: MEMBER              assigned to MEMBER (its Lease's name)
 *   object    drain.kopf.zalando.org/RING: "true"              MEMBER is asked to let it go (any value asks)
 *   object    annotation shard.kopf.zalando.org/RING: SEAL     the ring's seal of the assignment (`seals.ts`)
 *   Lease     annotation kopf.zalando.org/ring-seal: SEAL      the ring's seal of the member's renewal
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../structs/resources.ts';
import { SHARDING_LABEL_PREFIXES } from '../progress/essence.ts';

/** The label on a member's Lease: its value is the ring's name. */
export const RING_LABEL = 'kopf.zalando.org/ring';
/**
 * The prefixes of the assignment label's key and of the drain label's; the ring's name completes
 * them. Neither is a change of the object for its handlers (`progress/essence.ts`).
 */
export const [SHARD_LABEL_PREFIX, DRAIN_LABEL_PREFIX] = SHARDING_LABEL_PREFIXES as [string, string];
/** The drain label's value, as the assigner writes it; any value asks for the drain. */
export const DRAIN_VALUE = 'true';
/** The annotation on a member's Lease that seals its renewal. */
export const LEASE_SEAL_ANNOTATION = 'kopf.zalando.org/ring-seal';

export function shardLabel(ring: string): string { return `${SHARD_LABEL_PREFIX}${ring}`; }
export function drainLabel(ring: string): string { return `${DRAIN_LABEL_PREFIX}${ring}`; }
/** The annotation that seals the assignment: the assignment label's key, among the annotations. */
export function sealAnnotation(ring: string): string { return shardLabel(ring); }

/**
 * A replica's name in the ring, and its Lease's: the ring's name and a digest of the replica's
 * identity, since an identity (`user@host/…`) may hold characters a name or a label may not.
 */
export function memberName(ring: string, identity: string): string {
  return `${ring}-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;
}

/**
 * A ring replica's identity in the peering records: its identity, marked with the ring, so that
 * the ring's replicas know each other there as siblings (they split the objects, they do not
 * compete for them) while any other peer (a `--dev` operator, `kopf freeze`) still pauses them.
 */
export function ringPeerIdentity(ring: string, identity: string): string {
  return `${identity}#ring=${ring}`;
}

export function isRingPeer(ring: string, identity: string): boolean {
  return identity.endsWith(`#ring=${ring}`);
}

/** The label selector of a replica's watches: the objects assigned to it. */
export function memberSelector(ring: string, member: string): string {
  return `${shardLabel(ring)}=${member}`;
}

function labelsOf(body: KubeObject): Record<string, string> {
  return (body.metadata?.labels ?? {}) as Record<string, string>;
}

/** The member the object is assigned to, and whether its move away is asked for. */
export function placementOf(body: KubeObject, ring: string): { shard: string | undefined; draining: boolean } {
  const labels = labelsOf(body);
  const shard = labels[shardLabel(ring)];
  return { shard: typeof shard === 'string' && shard ? shard : undefined, draining: drainLabel(ring) in labels };
}

/** The object's seal of its assignment, as written (to be opened by `RingSeals.openAssignment`). */
export function sealOf(body: KubeObject, ring: string): unknown {
  const annotations = body.metadata?.annotations;
  return annotations ? (annotations as Record<string, unknown>)[sealAnnotation(ring)] : undefined;
}
