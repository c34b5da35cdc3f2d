/**
 * An operator's coordination with the other operators on its cluster: peering (a peer of a higher
 * priority pauses it), the leader election (it is paused until it holds the Lease), and a ring's
 * replica (`ring-replica.ts`: paused until it holds its own Lease, then it handles only its share).
 * Each turns a toggle of the operator's `pauses`; `followPauses` is what a pause does to its work.
 *
 * The coordination outlives the processing: it is stopped after the pipelines, because a replica
 * that lets the others take over must have stopped its own work first.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import type { Pausing } from '../daemons/pausing.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import { unlessAborted } from '../structs/aborts.ts';
import { Peering } from '../peering/peering.ts';
import { LeaderElection } from '../peering/leases.ts';
import { isRingPeer, ringPeerIdentity } from '../sharding/ring-labels.ts';
import type { RingAssigner } from '../sharding/assigner.ts';
import type { PipelineEnv, ResourcePipeline } from '../pipeline/pipeline.ts';
import { joinRing, type RingReplica } from './ring-replica.ts';

/** What the coordination needs of the operator, once it has connected. */
interface CoordinationEnv {
  readonly client: KubeClient;
  readonly settings: OperatorSettings;
  /** The operator's name among its peers. */
  readonly identity: string;
  /** The operator's pauses: peering, the election and a ring's membership each turn one of them. */
  readonly pauses: ToggleSet;
  /** The operator's root logger: each part logs under a name of its own. */
  readonly logger: Logger;
  /** The Leases' namespace when neither the settings nor `POD_NAMESPACE` name one. */
  readonly credentialsNamespace: string | undefined;
  /** The operator's stop: the waits of the start (for peering's first look, the ring's key) end with it. */
  readonly stop: AbortSignal;
  /** A ring's membership was lost: every object is let go. */
  readonly lost: () => void;
  readonly metrics: OperatorMetrics | undefined;
}

/**
 * Peering, the leader election and a ring's replica, as one operator runs them: started once it has
 * connected, stopped after its pipelines. Made before the start, so that a run that fails on the
 * way stops whatever of it has started.
 */
export class Coordination {
  /** Ends peering and the ring's assigner: only at the stop. */
  private readonly ending = new AbortController();
  private peering: Peering | undefined;
  private election: LeaderElection | undefined;
  private ring: RingReplica | undefined;

  /** Starts peering, then the election and the ring: nothing is processed before peering has had its say. */
  async start(env: CoordinationEnv): Promise<void> {
    if (!env.settings.peering.standalone) {
      this.peering = this.peer(env);
      // A stop does not wait for peering's retries.
      await unlessAborted(this.peering.ready, env.stop);
    }
    this.election = elect(env);
    const { client, settings, identity, pauses, lost, stop, metrics } = env;
    this.ring = await joinRing({
      client, settings: settings.sharding, identity, pauses, lost, stop, metrics,
      namespace: leaseNamespace(settings.sharding.namespace, env),
      logger: env.logger.child('kopf.sharding'), signal: this.ending.signal,
    });
  }

  /** The ring's assigner, if this operator is a ring's replica: its watches are served beside the pipelines'. */
  get assigner(): RingAssigner | undefined {
    return this.ring?.assigner;
  }

  /** The pipelines' environment of a ring's replica: they watch and handle only the objects assigned to it. */
  withMembership(env: PipelineEnv): PipelineEnv {
    if (!this.ring) return env;
    return { ...env, membership: { ...this.ring.tenure, retryPeriod: env.settings.sharding.retryPeriod } };
  }

  /** A namespace served now: peering looks at its peering object too. */
  addNamespace(namespace: string): void {
    this.peering?.addNamespace(namespace);
  }

  /** A namespace no longer served: peering stops looking at its peering object. */
  async removeNamespace(namespace: string): Promise<void> {
    await this.peering?.removeNamespace(namespace);
  }

  /**
   * Ends peering, the election and the ring's replica. The ring's Lease goes only now: the others
   * take this replica's objects once it has stopped with them.
   */
  async stop(): Promise<void> {
    this.ending.abort();
    const { peering, election, ring } = this;
    await Promise.all([peering?.settled(), election?.stop(), ring?.membership.stop(), ring?.stopCandidacy()]);
  }

  private peer(env: CoordinationEnv): Peering {
    // A ring's replicas are peers of one priority that must not pause each other: siblings.
    const { ring } = env.settings.sharding;
    return new Peering({
      client: env.client, settings: env.settings.peering, paused: env.pauses, logger: env.logger.child('kopf.peering'),
      identity: ring === null ? env.identity : ringPeerIdentity(ring, env.identity),
      siblings: ring === null ? undefined : (identity) => isRingPeer(ring, identity),
      signal: this.ending.signal,
    });
  }
}

/**
 * A pause holds the pipelines' queues and stops the timers and daemons; its end resumes both.
 * Followed from before the first pipeline until after the last has stopped; returns the unfollowing.
 */
export function followPauses(
  pauses: ToggleSet, pausing: Pausing, pipelines: readonly ResourcePipeline[],
): () => void {
  const unsubscribe = pauses.subscribe((on) => {
    for (const { queue } of pipelines) if (on) queue.pause(); else queue.resume();
    if (on) void pausing.pause(); else pausing.resume();
  });
  if (pauses.on) void pausing.pause();
  return unsubscribe;
}

/** Starts the leader election if asked for: until this replica holds the Lease, it is paused. */
function elect(env: CoordinationEnv): LeaderElection | undefined {
  const settings = env.settings.leaderElection;
  if (settings.name === null) return undefined;
  const namespace = leaseNamespace(settings.namespace, env);
  const election = new LeaderElection({
    client: env.client, settings: { ...settings, name: settings.name }, namespace, identity: env.identity,
    paused: env.pauses, logger: env.logger.child('kopf.leadership'),
  });
  election.start();
  env.metrics?.observe('leader', { lease: `${namespace}/${settings.name}` }, () => election.leading ? 1 : 0);
  return election;
}

/** A Lease's namespace: the one configured, else the pod's, else the credentials', else `default`. */
function leaseNamespace(configured: string | null, env: CoordinationEnv): string {
  return configured ?? process.env.POD_NAMESPACE ?? env.credentialsNamespace ?? 'default';
}
