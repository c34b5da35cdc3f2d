/**
 * The ring's seals: HMAC-SHA-256 signatures, with a key that only the ring's replicas can read,
 * over what the ring itself writes, so that what anyone else writes is recognisable as not the
 * ring's. A label or a Lease can be written by whoever may patch the object or write Leases; a
 * valid seal cannot be made without the key.
 *
 * - A member's Lease carries a seal over (ring, member, holder, renewTime, incarnation): a Lease
 *   without one is no member; one whose renewTime does not advance is not renewed.
 * - An object's assignment carries a seal over (ring, uid, member, the member's incarnation, a
 *   sequence), in an annotation beside the label: a replica starts an object only on a valid seal
 *   naming itself, its incarnation and a sequence newer than any it has let go of the object.
 * - A member's acknowledgement of a drain is a seal of the released assignment.
 *
 * The key is a Secret in the ring's namespace, created by the first replica that finds none.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createObject, getObject, isAlreadyExists, isNotFound, type KubeClient,
} from '../kube/index.ts';
import { Secrets } from '../structs/builtins.ts';

/** The Secret's name in the ring's namespace: `kopf rbac --sharding RING` grants `get` on it only. */
export function keySecretName(ring: string): string {
  return `${ring}-ring-key`;
}

const KEY_FIELD = 'key';
const KEY_BYTES = 32;

/** Reads the ring's key, creating it if there is none yet (the first replica's wins a race). */
export async function loadRingKey(
  client: KubeClient, namespace: string, ring: string, signal?: AbortSignal,
): Promise<RingSeals> {
  const name = keySecretName(ring);
  const read = async () => {
    const secret = await getObject(client, Secrets, { namespace, name }, { signal });
    const key = Buffer.from(String(secret.data?.[KEY_FIELD] ?? ''), 'base64');
    if (key.length < KEY_BYTES) throw new Error(`The ring's key '${namespace}/${name}' is too short.`);
    return new RingSeals(ring, key);
  };
  try {
    return await read();
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const data = { [KEY_FIELD]: randomBytes(KEY_BYTES).toString('base64') };
  const body = { metadata: { name, namespace }, type: 'Opaque', data };
  try {
    await createObject(client, Secrets, body, { signal });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  return read();
}

/** An object's assignment, as the assigner seals it, or its release, as its member seals it. */
export interface Assignment {
  state: 'assigned' | 'released';
  member: string;
  /** The member's incarnation (its process's, from its Lease) that the assignment is for. */
  incarnation: string;
  /** Newer for each assignment of the object: a replayed older one is refused. */
  sequence: number;
}

/** What a member's Lease says, sealed. */
export interface LeaseState {
  member: string;
  holder: string;
  renewTime: string;
  incarnation: string;
}

const SEP = '\u0000';
const FORMAT = 'v1';

export class RingSeals {
  readonly ring: string;
  readonly #key: Buffer;

  constructor(ring: string, key: Buffer) {
    this.ring = ring;
    this.#key = key;
  }

  #mac(parts: readonly string[]): string {
    return createHmac('sha256', this.#key).update([FORMAT, this.ring, ...parts].join(SEP)).digest('base64url');
  }

  #valid(parts: readonly string[], mac: string): boolean {
    const expected = Buffer.from(this.#mac(parts));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The annotation's value for an object's assignment or release. */
  sealAssignment(uid: string, assignment: Assignment): string {
    const { state, member, incarnation, sequence } = assignment;
    const fields = [state, member, incarnation, String(sequence)];
    return [...fields, this.#mac(['object', uid, ...fields])].join(':');
  }

  /** The assignment an annotation's value says, if its seal is valid for this object; else undefined. */
  openAssignment(uid: string | undefined, value: unknown): Assignment | undefined {
    if (typeof uid !== 'string' || typeof value !== 'string' || value.length > 512) return undefined;
    const fields = value.split(':');
    if (fields.length !== 5) return undefined;
    const [state, member, incarnation, sequence, mac] = fields as [string, string, string, string, string];
    if (state !== 'assigned' && state !== 'released') return undefined;
    if (!/^[0-9]{1,16}$/.test(sequence) || !this.#valid(['object', uid, state, member, incarnation, sequence], mac)) {
      return undefined;
    }
    return { state, member, incarnation, sequence: Number(sequence) };
  }

  /** The Lease annotation's value for this state of a member's Lease. */
  sealLease(state: LeaseState): string {
    const { member, holder, renewTime, incarnation } = state;
    return `${incarnation}:${this.#mac(['lease', member, holder, renewTime, incarnation])}`;
  }

  /** The incarnation a Lease's seal names, if the seal is valid for its fields; else undefined. */
  openLease(state: Omit<LeaseState, 'incarnation'>, value: unknown): string | undefined {
    if (typeof value !== 'string' || value.length > 256) return undefined;
    const [incarnation, mac, ...rest] = value.split(':');
    if (incarnation === undefined || mac === undefined || rest.length) return undefined;
    const { member, holder, renewTime } = state;
    return this.#valid(['lease', member, holder, renewTime, incarnation], mac) ? incarnation : undefined;
  }
}

/** A new incarnation: one per process's membership, so that a restarted replica's old seals are void. */
export function newIncarnation(): string {
  return randomBytes(9).toString('base64url');
}
