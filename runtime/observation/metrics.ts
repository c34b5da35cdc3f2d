/**
 * What the runtime reports about itself for its metrics: the calls its hot paths make, and the
 * gauges they let be read. Only types live here, so that any layer (the API client included)
 * can report without loading a metrics library; the implementation is `metrics/`, loaded only
 * when an operator is asked to serve metrics. Where metrics are off, the reporting places hold
 * no reference at all, and their cost is one check of an absent property.
 *
 * Labels are bounded by what the operator serves: resources, handler ids, webhook ids, verbs,
 * status codes — never an object's name or namespace-scoped identity. Sub-handlers, whose ids may
 * come from an object's content, are reported under their top-level handler's id
 * (`handling/observers.ts`); the implementation caps what is left (metrics/labels.ts).
 */

/** What ran a handler (`kopf_handler_runs_total{kind}`). */
export type HandlerKind =
  | 'change' | 'event' | 'timer' | 'daemon' | 'index' | 'activity' | 'validate' | 'mutate' | 'reconcile';

/**
 * How a handler's run ended: `retry` — it failed and will be tried again (a temporary error, or
 * an arbitrary exception with retries left); `failure` — it failed for good (a permanent error,
 * its retries or time exhausted, or an error that is not retried, as an event handler's).
 */
export type HandlerOutcome = 'success' | 'retry' | 'failure';

/**
 * Why a watch stream was opened again (`kopf_watch_restarts_total{reason}`): `closed` — the server
 * ended it (its timeout); `expired` — 410 Gone, the objects are listed again; `inactivity` —
 * silent past its inactivity timeout; `malformed` — a line that is not an event; `error` — a
 * network error, 5xx or 429.
 */
export type WatchRestartReason = 'closed' | 'expired' | 'inactivity' | 'malformed' | 'error';

/**
 * What queued a reconciler's run (`kopf_reconcile_requests_total{trigger}`): `change` — an event of
 * the object itself; `owned` — a change of an owned child; `watched` — a change of a watched object
 * that its `map` named it in; `resync` — the resync period; `requeue` — its `requeueAfter`;
 * `retry` — a retry after an error.
 */
export type ReconcileTrigger = 'change' | 'owned' | 'watched' | 'resync' | 'requeue' | 'retry';

/**
 * Why a ring's assigner moved an object (`kopf_ring_moves_total{reason}`): `assign` — it had no
 * member (a new object, or one whose drain was acknowledged); `failover` — its member was gone;
 * `drain` — a living member was asked to let it go, as the ring wants it elsewhere.
 */
export type RingMoveReason = 'assign' | 'failover' | 'drain';

/** The gauges, read when scraped (nothing is paid for them between scrapes). */
export type GaugeName =
  | 'queueDepth' | 'objectsInProgress' | 'daemonsRunning' | 'watchHealthy' | 'paused' | 'leader'
  | 'ringMembers' | 'ringObjects';

/** A gauge's labels (`resource`, `namespace`, `lease`), by name. */
export type GaugeLabels = Readonly<Record<string, string>>;

/** What the API client reports of its requests. */
export interface ApiMetrics {
  /**
   * One HTTP attempt: `verb` is the method in upper case, `WATCH` for a watch stream's opening;
   * `resource` is `resourceLabel`'s form, or `''` for paths that name none (discovery); `code` is
   * the HTTP status, 0 when no response came.
   */
  apiRequest(verb: string, resource: string, code: number, seconds: number): void;
  /** A wait before a retry that the server asked for by answering 429 (Too Many Requests). */
  apiThrottled(verb: string, seconds: number): void;
}

/** What one watch stream reports: its resource and namespace are bound in (`OperatorMetrics.watch`). */
export interface WatchMetrics {
  /** An event received: ADDED, MODIFIED, DELETED, BOOKMARK. */
  event(type: string): void;
  restart(reason: WatchRestartReason): void;
}

/** The operator's metrics, as the runtime's reporting places see them. */
export interface OperatorMetrics extends ApiMetrics {
  /**
   * A handler's run, and its seconds; `undefined` seconds when its limits (retries, timeout) ended
   * it before a call. Its resource is `''` for activities.
   */
  handlerRun(
    resource: string, handler: string, kind: HandlerKind, outcome: HandlerOutcome, seconds: number | undefined,
  ): void;
  /** The seconds an object's event waited in its queue before it was processed. */
  queueWait(resource: string, seconds: number): void;
  /** The instruments of one watch stream; `namespace` is `null` for cluster-wide ones. */
  watch(resource: string, namespace: string | null): WatchMetrics;
  /** An admission review answered: `webhook` is the handler's id, `code` the HTTP status. */
  webhookRequest(webhook: string, code: number, seconds: number): void;
  /**
   * A resource no longer served (`namespace` absent): all its series are removed; or its stream
   * in one namespace (the namespace gone, or no longer matching): that stream's series are removed.
   */
  unserved(resource: string, namespace?: string): void;
  /**
   * Reads a gauge's value with these labels at every scrape, until the returned function is
   * called. Several readers with the same labels add up (a resource's queues, say).
   */
  observe(gauge: GaugeName, labels: GaugeLabels, read: () => number): () => void;
  /**
   * As `observe`, for a gauge whose series come and go (a ring's members): `read` gives every
   * series with its labels at each scrape.
   */
  observeSeries(gauge: GaugeName, read: () => Iterable<readonly [GaugeLabels, number]>): () => void;
  /** A reconciler's run, by what queued it; `resource` is `resourceLabel`'s form. */
  reconcileRequest(resource: string, trigger: ReconcileTrigger): void;
  /** An object moved by a ring's assigner (a label written). */
  ringMove(ring: string, reason: RingMoveReason): void;
}

/**
 * Where the runs of handlers are reported, bound to what ran them (a resource and a kind): the one
 * port through which a handler's call reaches the metrics (`handling/calls.ts` calls it).
 */
export interface HandlerObserver {
  /** A run of the handler `id` ended so; `seconds` is `undefined` when its limits ended it before a call. */
  ran(id: string, outcome: HandlerOutcome, seconds: number | undefined): void;
}
