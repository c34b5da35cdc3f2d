/** What an operator is given, and how its options map into its settings. */
import type { KubeConfig } from '@kubernetes/client-node';
import type { OperatorSettings } from '../config/settings.ts';
import type { LogConfig } from '../logging/index.ts';
import type { OperatorRegistry } from '../registry/registry.ts';
import type { Memo } from '../registry/contexts.ts';
import type { Lifecycle } from '../handling/lifecycles.ts';
import type { KubeClient } from '../kube/index.ts';
import type { Clock } from '../structs/clock.ts';

export interface OperatorOptions {
  registry?: OperatorRegistry;
  settings?: OperatorSettings;
  /** Credentials; the default loading rules (KUBECONFIG, ~/.kube/config, in-cluster) when absent. */
  kubeconfig?: KubeConfig;
  client?: KubeClient;
  /** Namespaces to serve; cluster-wide when empty and `clusterwide` is set. */
  namespaces?: readonly string[];
  clusterwide?: boolean;
  /** No peering with other operators (`settings.peering.standalone`). */
  standalone?: boolean;
  /** This operator's priority among its peers (`settings.peering.priority`). */
  priority?: number;
  /** The peering object's name; makes peering mandatory (`settings.peering.name` and `mandatory`). */
  peering?: string;
  /** This operator's name among its peers; `POD_ID`, else `user@host/started/xyz`. */
  identity?: string;
  /** Elect a leader among replicas on the Lease of this name (`settings.leaderElection.name`). */
  leaderElection?: string;
  /**
   * Join the ring of this name (`settings.sharding.ring`): several active replicas split the objects
   * between them, each watching and handling only its share (see docs/peering.md).
   */
  sharding?: string;
  logs?: LogConfig;
  memo?: Memo;
  lifecycle?: Lifecycle;
  /**
   * Serve the liveness endpoint here: `http://HOST:PORT/PATH` (port 0 for any free one; see
   * `livenessUrl`). It answers with the probe handlers' results, or an error status when the
   * operator is not running or a watch has been silent past its inactivity timeout.
   */
  liveness?: string;
  /**
   * Serve the operator's metrics here, in Prometheus's text format: `http://HOST:PORT/PATH` (port 0
   * for any free one; see `metricsUrl`). With `liveness` on the same host and port, one server
   * serves both paths. Without it, no metrics are kept and their library is not loaded.
   */
  metrics?: string;
  /** Aborting it stops the operator gracefully. */
  signal?: AbortSignal;
  /**
   * The clock of the handlers' time (`structs/clock.ts`): `now()` in their contexts, and what their
   * scheduling waits on (requeues, resyncs, retries, delays, timers, daemons' sleeps). A test gives
   * a `VirtualClock` (`kopf/testing`) and moves it with `advance(seconds)`; the system's otherwise.
   */
  clock?: Clock;
}

/** Maps the operator's peering and leader-election options into its settings, as Kopf maps `kopf run`'s. */
export function applyPeeringOptions(settings: OperatorSettings, options: OperatorOptions): void {
  settings.peering.clusterwide = options.clusterwide || !options.namespaces?.length;
  if (options.peering !== undefined) {
    settings.peering.name = options.peering;
    settings.peering.mandatory = true;
  }
  if (options.standalone !== undefined) settings.peering.standalone = options.standalone;
  if (options.priority !== undefined) settings.peering.priority = options.priority;
  if (options.leaderElection !== undefined) settings.leaderElection.name = options.leaderElection;
  if (options.sharding !== undefined) settings.sharding.ring = options.sharding;
}
