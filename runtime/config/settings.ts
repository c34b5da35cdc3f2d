/**
 * The shape of the operator's settings: Kopf's `OperatorSettings`, camelCased, one mutable tree per
 * operator (startup handlers may change it before the operator starts its work). Nothing is shared
 * between trees: `defaultSettings()` (defaults.ts) builds a fresh one each time.
 *
 * Durations are in seconds, as in Kopf; `null` stands for Kopf's `None` (no limit / not set).
 * Log levels are numbers on Python's scale (see runtime/logging/levels.ts).
 */
import type { DiffBaseStorage, ProgressStorage } from '../progress/index.ts';
import type { AdmissionServer } from './admission.ts';

export interface ProcessSettings {
  /** After a graceful shutdown starts (not via a stop signal), exit by force after this long; `null`: never. */
  ultimateExitingTimeout: number | null;
}

export interface PostingSettings {
  /** Post Kubernetes Events at all (also for `event()`, `info()`, `warn()`, `exception()`). */
  enabled: boolean;
  /** Also post object loggers' records as Events (reason `Logging`); off since Kopf 1.44. */
  loggers: boolean;
  /** The least level posted: for logged records and for the `info`/`warn`/`exception` helpers. */
  level: number;
  /** The Events' `reportingComponent` and `source.component`. */
  reportingComponent: string;
  reportingInstance: string;
  /** The Events' `metadata.generateName`. */
  eventNamePrefix: string;
}

export interface PeeringSettings {
  /** The peering object's name. */
  name: string;
  /** Do not log successful keep-alives. */
  stealth: boolean;
  priority: number;
  /** Seconds our peer record stays valid for others. */
  lifetime: number;
  /** Pause (rather than run standalone) when the peering object is missing. */
  mandatory: boolean;
  /** No peering at all. */
  standalone: boolean;
  /** Cluster-wide peering objects rather than namespaced ones; set from the run mode. */
  clusterwide: boolean;
}

/**
 * Not Kopf's: leader election on a `coordination.k8s.io/v1` Lease, so that of several replicas
 * exactly one processes (client-go's defaults). The holder must renew within `renewDeadline`, or it
 * pauses itself before its lease can expire and another replica take over.
 */
export interface LeaderElectionSettings {
  /** The Lease's name; `null`: no leader election. */
  name: string | null;
  /** The Lease's namespace; `null`: `POD_NAMESPACE`, else the credentials' namespace, else `default`. */
  namespace: string | null;
  /** Seconds a lease is valid after its last renewal, for the others. */
  leaseDuration: number;
  /** Seconds the holder keeps trying to renew before it gives up its processing. */
  renewDeadline: number;
  /** Seconds between attempts to acquire or renew. */
  retryPeriod: number;
}

/**
 * Several active replicas splitting the objects between them (`runtime/sharding/`): each holds a
 * Lease in the ring, one of them (elected) assigns the objects by a label, and each watches only
 * the objects assigned to it.
 */
export interface ShardingSettings {
  /** The ring's name (a DNS label of at most 40 characters); `null`: no sharding, every object is served. */
  ring: string | null;
  /** The Leases' namespace; `null`: `POD_NAMESPACE`, else the credentials' namespace, else `default`. */
  namespace: string | null;
  /** Seconds a member's Lease is valid after its last renewal: after it, the member is dead for the assigner. */
  leaseDuration: number;
  /** Seconds a member keeps trying to renew before it pauses its processing. */
  renewDeadline: number;
  /** Seconds between renewals (and attempts to become the assigner). */
  retryPeriod: number;
}

export interface WatchingSettings {
  /** `timeoutSeconds` of watch requests; `null`: the server's choice. */
  serverTimeout: number | null;
  /** Total client-side time of one watch request. */
  clientTimeout: number | null;
  /** Watch connect timeout; falls back to `networking.connectTimeout`, then `networking.requestTimeout`. */
  connectTimeout: number | null;
  /** Pause between watch (re)connections. */
  reconnectBackoff: number;
  /** Reconnect a watch stream silent (not even bookmarks) for this long. */
  inactivityTimeout: number;
  /**
   * Read a resource's objects as a watch's initial events (`sendInitialEvents`) rather than a
   * paginated LIST; a server that refuses it is listed in pages instead. Off by default.
   */
  streamingLists: boolean;
}

export interface QueueingSettings {
  /**
   * Objects processed at once per served resource; `null`: unlimited (Kopf's default). 64 here: bounded memory in
   * bursts.
   */
  workerLimit: number | null;
  /**
   * Objects waiting for a worker, per served resource, that are held whole; those further back in
   * line are held as their names and read again when their turn comes. `null`: all held whole.
   */
  heldLimit: number | null;
  /** A per-object worker exits after being idle this long. */
  idleTimeout: number;
  /** Time for workers to drain their queues when a watcher stops. */
  exitTimeout: number;
  /**
   * Delays after unexpected framework/API errors per object; the last one repeats; empty: none.
   * Must be re-iterable (an array, or an object whose iterator starts afresh each time).
   */
  errorDelays: Iterable<number>;
}

export interface ScanningSettings {
  /** Do not observe namespaces and CRDs at runtime. */
  disabled: boolean;
}

export interface AdmissionSettings {
  /** The webhook server (e.g. `new WebhookServer()`); required when admission handlers are registered. */
  server: AdmissionServer | null;
  /** The name of the webhook configurations to create and maintain; `null`: not managed. */
  managed: string | null;
}

export interface ExecutionSettings {
  /** Backoff after an arbitrary error of a handler that sets none. */
  defaultBackoff: number;
}

/**
 * Not Kopf's: the retries of reconcilers (`on.reconcile`) after an error, per object: the delay
 * doubles from `backoffBase` with each failure in a row, up to `backoffCap`; a success resets it.
 */
export interface ReconcilingSettings {
  /** Seconds before the first retry. */
  backoffBase: number;
  /** The longest delay between retries, in seconds. */
  backoffCap: number;
}

export interface NetworkingSettings {
  /** Total time of a regular API request. */
  requestTimeout: number | null;
  connectTimeout: number | null;
  /** Sleeps between retries of retryable API errors; empty: no retries. Re-iterable, as above. */
  errorBackoffs: Iterable<number>;
  /** On 429, obey the server's Retry-After even when it is shorter than our own backoff. */
  enforceRetryAfter: boolean;
  /**
   * Not Kopf's: after a turn that read API responses, sleep the thread for the rest of this time, so
   * that the responses arriving meanwhile are handled together; 0: never. `kopf run` sets 0.002
   * (docs/settings.md).
   */
  readCoalescing: number;
}

export interface PersistenceSettings {
  finalizer: string;
  /** Kopf's default: annotations, also reading progress left in `status.kopf.progress` by older Kopf. */
  progressStorage: ProgressStorage;
  /** Kopf's default: the `kopf.zalando.org/last-handled-configuration` annotation. */
  diffbaseStorage: DiffBaseStorage;
  /** How long to wait for our own patch's resourceVersion to arrive through the watch; 0: not at all. */
  consistencyTimeout: number;
}

/**
 * Not Kopf's: the status that tools read (docs/status.md). With `conditions`, every handled object
 * keeps `status.observedGeneration` and the conditions `Reconciling`, `Stalled` and `Ready`, in the
 * writes its cycles make anyway.
 */
export interface StatusSettings {
  conditions: boolean;
}

export interface BackgroundSettings {
  /** Polling period for exiting daemons and timers that have no timeout. */
  cancellationPolling: number;
  /** If set, how long to wait for a stopped daemon to exit "instantly". */
  instantExitTimeout: number | null;
  /** Otherwise, how many zero-time turns of the event loop to give it. */
  instantExitZeroTimeCycles: number;
}

export interface OperatorSettings {
  process: ProcessSettings;
  posting: PostingSettings;
  peering: PeeringSettings;
  leaderElection: LeaderElectionSettings;
  sharding: ShardingSettings;
  watching: WatchingSettings;
  queueing: QueueingSettings;
  scanning: ScanningSettings;
  admission: AdmissionSettings;
  execution: ExecutionSettings;
  reconciling: ReconcilingSettings;
  networking: NetworkingSettings;
  persistence: PersistenceSettings;
  status: StatusSettings;
  background: BackgroundSettings;
}

/** Some fields of some groups, e.g. `{ posting: { enabled: false } }`. */
export type SettingsOverrides = { [G in keyof OperatorSettings]?: Partial<OperatorSettings[G]> };
