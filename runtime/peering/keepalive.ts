/**
 * Our record in a peering object: written now and again before it expires (with a few seconds of
 * jitter, so that many operators do not write in lockstep), and removed on a clean exit so that
 * the peers we paused resume at once instead of waiting for the record to expire.
 */
import { isNotFound, patchObjectVersion, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { sleep } from '../queueing/sleeping.ts';
import { ownRecord, type Peer } from './peers.ts';
import type { PeeringObject } from './resources.ts';

/** Where a peering's records are: one peering object. */
export interface PeeringPlace {
  client: KubeClient;
  resource: ResourceDescriptor<PeeringObject>;
  /** `null` for cluster-wide peering. */
  namespace: string | null;
  name: string;
}

export interface OwnPeer {
  identity: string;
  priority: number;
  lifetime: number;
  /** No debug line for successful keep-alives. */
  stealth: boolean;
  /** Peers that work beside us, not against us (replicas of one ring): they never pause us. */
  siblings?: (identity: string) => boolean;
}

/** Writes our record (or, with a zero lifetime, removes it). True if the peering object exists. */
export async function touch(
  place: PeeringPlace,
  own: OwnPeer,
  logger: Logger,
  lifetime = own.lifetime,
): Promise<boolean> {
  const found = await patchStatus(place, { [own.identity]: ownRecord(own.priority, lifetime) });
  if (!own.stealth || !found)
    logger.debug(`Keep-alive in ${quote(place.name)} ${where(place)}: ${found ? 'ok' : 'not found'}.`);
  return found;
}

/** Removes dead peers' records: whoever sees them does it. */
export async function clean(place: PeeringPlace, dead: readonly Peer[]): Promise<void> {
  await patchStatus(place, Object.fromEntries(dead.map((peer) => [peer.identity, null])));
}

/** Keeps our record alive until `signal` aborts, then removes it. */
export async function keepAlive(place: PeeringPlace, own: OwnPeer, logger: Logger, signal: AbortSignal): Promise<void> {
  try {
    while (!signal.aborted) {
      await touch(place, own, logger).catch((error: unknown) => {
        if (!signal.aborted) logger.error(`Keep-alive in ${quote(place.name)} ${where(place)} failed.`, error);
      });
      if (!(await sleep(keepAliveInterval(own.lifetime), signal))) break;
    }
  } finally {
    await touch(place, own, logger, 0).catch(
      (error: unknown) => logger.error('Could not remove self from the peering. Ignoring.', error)
    );
  }
}

/** A little before the record expires, with jitter; never more often than once a second. */
export function keepAliveInterval(lifetime: number, random: () => number = Math.random): number {
  const jitter = 5 + Math.floor(random() * 6);
  return Math.max(1, Math.min(lifetime, Math.max(1, lifetime - jitter)));
}

async function patchStatus(place: PeeringPlace, status: Record<string, unknown>): Promise<boolean> {
  const ref = { namespace: place.namespace ?? undefined, name: place.name };
  try {
    await patchObjectVersion(place.client, place.resource, ref, { status });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** As Kopf says where a peering is: `in 'default'` or `cluster-wide`. */
export function where(place: { namespace: string | null }): string {
  return place.namespace === null ? 'cluster-wide' : `in ${quote(place.namespace)}`;
}

/** A string as Python's repr() quotes it in the messages Kopf writes. */
function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
