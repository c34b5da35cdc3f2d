/**
 * A replica's part in a ring (`runtime/sharding/`), as the operator starts it: a Lease of its own,
 * renewed until the stop (the replica is paused until it holds it), and a candidacy to be the
 * ring's assigner, on a Lease of the ring's, as a leader election. A paused replica (its own Lease
 * not renewed, or frozen) stands down from the candidacy and releases the assigner's Lease, so that
 * a replica that works assigns; it stands again when it resumes. Before all this, the ring's key
 * is read (or created, by the first replica): what the ring writes is sealed with it.
 */
import type { ShardingSettings } from '../config/settings.ts';
import type { KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { OperatorMetrics, RingMoveReason } from '../observation/metrics.ts';
import { ToggleSet } from '../structs/toggles.ts';
import { LeaderElection } from '../peering/leases.ts';
import { RingMembership } from '../sharding/membership.ts';
import { RingAssigner } from '../sharding/assigner.ts';
import { memberName } from '../sharding/ring-labels.ts';
import { loadRingKey, type RingSeals } from '../sharding/seals.ts';
import type { Tenure } from '../sharding/tenure.ts';
import { sleep } from '../queueing/sleeping.ts';
import { thrownText } from '../structs/errors.ts';

/** What a replica of a ring runs beside its pipelines, stopped after them. */
export interface RingReplica {
  readonly membership: RingMembership;
  /** Ends the candidacy, releasing the assigner's Lease if held. */
  stopCandidacy(): Promise<void>;
  readonly assigner: RingAssigner;
  /** This replica's name in the ring (its assignment label's value). */
  readonly member: string;
  /** What its share of the objects needs: its name, incarnation, and the ring's key. */
  readonly tenure: Tenure;
}

interface RingOptions {
  readonly client: KubeClient;
  readonly settings: ShardingSettings;
  /** The operator's identity among its peers. */
  readonly identity: string;
  /** The operator's pauses: the membership turns one while it does not hold its Lease. */
  readonly pauses: ToggleSet;
  /** The Leases' namespace. */
  readonly namespace: string;
  /** The membership was lost: every object is let go. */
  readonly lost: () => void;
  readonly logger: Logger;
  /** Ends the assigner's work (the operator's coordination). */
  readonly signal: AbortSignal;
  /** Ends the wait for the ring's key (the operator's stop while it starts). */
  readonly stop: AbortSignal;
  /** The operator's metrics, if kept: the ring's members, objects, moves, and the assigner's Lease. */
  readonly metrics?: OperatorMetrics;
}

/** Joins the ring named in the settings; `undefined` when there is none, or when stopped before the key is read. */
export async function joinRing(options: RingOptions): Promise<RingReplica | undefined> {
  const { ring, ...settings } = options.settings;
  if (ring === null) return undefined;
  const { client, namespace, identity, pauses, logger } = options;
  const seals = await readKey(options, ring);
  if (!seals) return undefined;
  const member = memberName(ring, identity);
  const membership = new RingMembership({
    client, settings: { ...settings, ring }, namespace, member, identity, paused: pauses, logger, lost: options.lost,
    seals,
  });
  const standby = new ToggleSet();
  const paused = standby.make('the operator is paused', pauses.on);
  const notAssigner = standby.make('not the assigner', true);
  let candidacy: LeaderElection | undefined;
  let standingDown: Promise<void> = Promise.resolve();
  const stand = (): LeaderElection => {
    const own = new ToggleSet();
    const election = new LeaderElection({
      client, settings: { ...settings, name: `${ring}-assigner` }, namespace, identity, paused: own, logger,
    });
    own.subscribe((on) => { if (candidacy === election) notAssigner.turn(on); });
    election.start();
    return election;
  };
  const unsubscribe = pauses.subscribe((on) => {
    paused.turn(on);
    if (on && candidacy) {
      const was = candidacy;
      candidacy = undefined;
      notAssigner.turn(true);
      standingDown = was.stop();
    } else if (!on && !candidacy && !options.signal.aborted) {
      candidacy = stand();
    }
  });
  if (!pauses.on) candidacy = stand();
  const { metrics } = options;
  const moved = metrics && ((reason: RingMoveReason) => metrics.ringMove(ring, reason));
  const assigner = new RingAssigner({
    client, settings: { ...settings, ring }, namespace, standby, logger, seals, moved,
  });
  if (metrics) observeRing(metrics, ring, `${namespace}/${ring}-assigner`, assigner, () => candidacy);
  membership.start();
  const failed = (error: unknown) => logger.error('Assigning the ring\'s objects failed.', error);
  assigner.run(options.signal).catch(failed);
  const stopCandidacy = async () => {
    unsubscribe();
    const was = candidacy;
    candidacy = undefined;
    await Promise.all([was?.stop(), standingDown]);
  };
  const tenure = { ring, member, incarnation: membership.incarnation, seals };
  return { membership, stopCandidacy, assigner, member, tenure };
}

/** The ring's key, tried again every `retryPeriod` until read (or created); undefined if stopped first. */
async function readKey(options: RingOptions, ring: string): Promise<RingSeals | undefined> {
  const { client, namespace, logger, settings, stop } = options;
  do {
    try {
      return await loadRingKey(client, namespace, ring, stop);
    } catch (error) {
      if (!stop.aborted) logger.warning(`Could not read the ring's key in '${namespace}': ${thrownText(error)}`);
    }
  } while (await sleep(settings.retryPeriod, stop));
  return undefined;
}

/**
 * The ring's gauges, read when scraped: its members as this replica sees them, the objects each
 * holds (given by the assigner only, which tracks them), and whether this replica is the assigner.
 */
function observeRing(
  metrics: OperatorMetrics, ring: string, lease: string, assigner: RingAssigner,
  candidacy: () => LeaderElection | undefined,
): void {
  metrics.observe('ringMembers', { ring }, () => assigner.members.size);
  metrics.observe('leader', { lease }, () => candidacy()?.leading ? 1 : 0);
  metrics.observeSeries('ringObjects', function* () {
    for (const [member, count] of assigner.held()) yield [{ ring, member }, count] as const;
  });
}
