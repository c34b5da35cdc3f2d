/** The one-member ring that the assigner's unit tests run against a fake API server. */
import { RingSeals } from '../../../runtime/sharding/seals.ts';
import { LEASE_SEAL_ANNOTATION, RING_LABEL } from '../../../runtime/sharding/ring-labels.ts';
import { microTime } from '../../../runtime/structs/builtins.ts';

export const LEASES = '/apis/coordination.k8s.io/v1/namespaces/ns/leases';
export const OBJECTS = '/apis/kopf.dev/v1/namespaces/ns/kopfexamples';
export const RING = 'r', MEMBER = 'm1', INCARNATION = 'inc-1';
export const seals = new RingSeals(RING, Buffer.alloc(32, 4));

/** The living member's Lease, its renewal sealed now, at `version`. */
export function member(version: number): object {
  const renewTime = microTime(Date.now());
  const seal = seals.sealLease({ member: MEMBER, holder: 'one', renewTime, incarnation: INCARNATION });
  return {
    metadata: {
      name: MEMBER, namespace: 'ns', resourceVersion: String(version), labels: { [RING_LABEL]: RING },
      annotations: { [LEASE_SEAL_ANNOTATION]: seal },
    },
    spec: { holderIdentity: 'one', renewTime },
  };
}
