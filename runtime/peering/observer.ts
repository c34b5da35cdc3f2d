/**
 * Watches one peering object and decides, at each of its changes, whether this operator may work:
 *
 * - a live peer of a higher priority pauses it;
 * - live peers of the same priority pause it too, and them (none of them can tell who should work:
 *   there are no per-object locks between operators), with a warning;
 * - when the blockers are gone (removed on their exit, or expired), it resumes;
 * - siblings (the replicas of one ring, which split the objects between them) do not count.
 *
 * Dead peers are removed by whoever sees them. A blocker that expires without a word is noticed at
 * its deadline: our own record is touched, and the change brings the object back here.
 */
import { watchStream } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Toggle } from '../structs/toggles.ts';
import { clean, touch, where, type OwnPeer, type PeeringPlace } from './keepalive.ts';
import { describePeers, isDead, parsePeers, type Peer } from './peers.ts';
import type { PeeringObject } from './resources.ts';

export type Verdict =
  | { kind: 'free'; dead: Peer[] }
  | { kind: 'outranked'; dead: Peer[]; blockers: Peer[] }
  | { kind: 'conflict'; dead: Peer[]; blockers: Peer[]; all: Peer[] };

/** What the records say for us: pure, for the tests and for the observer alike. */
export function judge(
  status: unknown, own: Pick<OwnPeer, 'identity' | 'priority' | 'siblings'>, now: number = Date.now(),
): Verdict {
  const all = parsePeers(status, now);
  const dead = all.filter((peer) => isDead(peer, now));
  const others = (peer: Peer) => peer.identity !== own.identity && !own.siblings?.(peer.identity);
  const live = all.filter((peer) => !isDead(peer, now) && others(peer));
  const higher = live.filter((peer) => peer.priority > own.priority);
  const same = live.filter((peer) => peer.priority === own.priority);
  if (higher.length) return { kind: 'outranked', dead, blockers: higher };
  if (same.length) return { kind: 'conflict', dead, blockers: same, all };
  return { kind: 'free', dead };
}

/**
 * Applies a verdict to the toggle, with Kopf's messages, said when the state changes from `wasOn`
 * (the toggle's state, but for a first look, whose pause was never announced). Returns the
 * milliseconds until the first blocker expires (when to judge again), if any blocks.
 */
export function obey(
  verdict: Verdict,
  toggle: Toggle,
  logger: Logger,
  now = Date.now(),
  wasOn = toggle.on,
): number | undefined {
  if (verdict.kind === 'outranked') {
    if (!wasOn) logger.info(`Pausing operations in favour of ${describePeers(verdict.blockers)}.`);
    toggle.turn(true);
  } else if (verdict.kind === 'conflict') {
    logger.warning(`Possibly conflicting operators with the same priority: ${describePeers(verdict.blockers)}.`);
    if (!wasOn) logger.warning(`Pausing all operators, including self: ${describePeers(verdict.all)}`);
    toggle.turn(true);
  } else {
    if (wasOn)
      logger.info('Resuming operations after the pause. Conflicting operators with the same priority are gone.');
    toggle.turn(false);
    return undefined;
  }
  return Math.max(0, Math.min(...verdict.blockers.map((peer) => peer.deadline)) - now);
}

/**
 * Watches the peering object until `signal` aborts (or the watch fails for good); the toggle is on
 * while this operator must pause. The first listing settles the toggle, which starts on: without
 * the object, a mandatory peering stays paused (said once), an optional one lets the operator
 * work, silently, as does a first look that finds nothing in the way.
 */
export async function observePeering(
  place: PeeringPlace, own: OwnPeer, toggle: Toggle, mandatory: boolean, logger: Logger, signal: AbortSignal,
): Promise<void> {
  let expiry: NodeJS.Timeout | undefined;
  let seen = false;
  const recheck = () => void touch(place, own, logger).catch((error: unknown) => {
    logger.error('Touching the peering object failed.', error);
  });
  try {
    const options = { namespace: place.namespace, fieldSelector: `metadata.name=${place.name}`, signal };
    for await (const event of watchStream<PeeringObject>(place.client, place.resource, options)) {
      if (event.type === 'LISTED_DONE' && !seen) {
        if (!mandatory) toggle.turn(false);
        else logger.warning(absentMessage(place));
      }
      if (!('object' in event) || event.object.metadata?.name !== place.name) continue;
      const firstLook = !seen;
      seen = true;
      clearTimeout(expiry);
      if (event.type === 'DELETED') continue; // the last verdict stands until the object is back
      const verdict = judge(event.object.status, own);
      if (verdict.dead.length) {
        await clean(place, verdict.dead).catch((error: unknown) => logger.error('Removing dead peers failed.', error));
      }
      const wait = obey(verdict, toggle, logger, Date.now(), toggle.on && !(firstLook && !mandatory));
      if (wait !== undefined) expiry = setTimeout(recheck, wait + 1);
    }
  } finally {
    clearTimeout(expiry);
  }
}

function absentMessage(place: PeeringPlace): string {
  const what = `The peering object '${place.name}' ${where(place)}`;
  return `${what} does not exist: processing stays paused until it is created (peering is mandatory).`;
}
