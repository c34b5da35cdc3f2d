/**
 * The operator's metrics in Prometheus's form, with prom-client: a registry of the operator's own
 * (several operators in one process count apart), Node's process metrics, and the instruments the
 * runtime reports to (`observation/metrics.ts`; their reference is docs/metrics.md).
 *
 * The counters and histograms are kept as plain numbers (`cells.ts`), so that a report costs a few
 * map lookups and an addition; the gauges are read only when scraped.
 */
import { Gauge, Registry } from 'prom-client';
import { CellCounter, CellHistogram, asMetric } from './cells.ts';
import { collectProcessMetrics } from './process-metrics.ts';
import type {
  GaugeLabels, GaugeName, HandlerKind, HandlerOutcome, OperatorMetrics, ReconcileTrigger, RingMoveReason,
  WatchMetrics, WatchRestartReason,
} from '../observation/metrics.ts';

/** A gauge's reader: the series it gives at each scrape. */
type Reader = () => Iterable<readonly [GaugeLabels, number]>;

const GAUGES: Record<GaugeName, { name: string; help: string; labelNames: string[] }> = {
  queueDepth: {
    name: 'kopf_queue_depth', help: 'Objects whose events wait to be processed.', labelNames: ['resource'],
  },
  objectsInProgress: {
    name: 'kopf_objects_in_progress', help: 'Objects being processed now.', labelNames: ['resource'],
  },
  daemonsRunning: { name: 'kopf_daemons_running', help: 'Daemons running now.', labelNames: ['resource'] },
  watchHealthy: {
    name: 'kopf_watch_healthy', labelNames: ['resource', 'namespace'],
    help: 'Whether a watch stream has heard from the server within its inactivity timeout (1) or not (0).',
  },
  paused: {
    name: 'kopf_paused', help: 'Whether peering or a freeze pauses the operator (1) or not (0).', labelNames: [],
  },
  leader: { name: 'kopf_leader', help: 'Whether this replica holds the Lease (1) or not (0).', labelNames: ['lease'] },
  ringMembers: {
    name: 'kopf_ring_members', help: 'The ring\'s living members, as this replica sees them.', labelNames: ['ring'],
  },
  ringObjects: {
    name: 'kopf_ring_objects', labelNames: ['ring', 'member'],
    help: 'Objects assigned to each member of the ring, as its assigner counts them (on the assigner only).',
  },
};

export class PrometheusMetrics implements OperatorMetrics {
  readonly registry = new Registry();
  readonly #readers = new Map<GaugeName, Set<Reader>>();

  readonly #handlerRuns = new CellCounter(
    'kopf_handler_runs_total', 'Handler runs, by how they ended.', ['resource', 'handler', 'kind', 'outcome'],
  );
  readonly #handlerDurations = new CellHistogram(
    'kopf_handler_duration_seconds', 'Seconds a handler run took.', ['resource', 'handler', 'kind'],
  );
  readonly #queueWaits = new CellHistogram(
    'kopf_queue_wait_seconds', 'Seconds from an event\'s arrival to its processing.', ['resource'],
  );
  readonly #watchEvents = new CellCounter(
    'kopf_watch_events_total', 'Events received by the watch streams.', ['resource', 'namespace', 'type'],
  );
  readonly #watchRestarts = new CellCounter(
    'kopf_watch_restarts_total', 'Watch streams opened again, by why.', ['resource', 'namespace', 'reason'],
  );
  readonly #apiRequests = new CellCounter(
    'kopf_api_requests_total', 'HTTP requests to the API server (every attempt).', ['verb', 'resource', 'code'],
  );
  readonly #apiDurations = new CellHistogram(
    'kopf_api_request_duration_seconds', 'Seconds until the API server\'s response.', ['verb'],
  );
  readonly #apiThrottled = new CellHistogram(
    'kopf_api_throttled_wait_seconds', 'Seconds waited before a retry after the API server answered 429 '
    + '(Too Many Requests).', ['verb'], [0.1, 0.5, 1, 2, 5, 10, 20, 30, 60],
  );
  readonly #webhookRequests = new CellCounter(
    'kopf_webhook_requests_total', 'Admission reviews answered, by HTTP status.', ['webhook', 'code'],
  );
  readonly #webhookDurations = new CellHistogram(
    'kopf_webhook_duration_seconds', 'Seconds an admission review took to answer.', ['webhook'],
  );
  readonly #reconcileRequests = new CellCounter(
    'kopf_reconcile_requests_total', 'Reconciler runs, by what queued them.', ['resource', 'trigger'],
  );
  readonly #ringMoves = new CellCounter(
    'kopf_ring_moves_total', 'Objects moved by the ring\'s assigner, by why.', ['ring', 'reason'],
  );

  /** Stops what Node's process metrics keep running (`close()`). */
  readonly #stopProcessMetrics = collectProcessMetrics(this.registry);

  readonly #cells = [
    this.#handlerRuns, this.#handlerDurations, this.#queueWaits, this.#watchEvents, this.#watchRestarts,
    this.#apiRequests, this.#apiDurations, this.#apiThrottled, this.#webhookRequests, this.#webhookDurations,
    this.#reconcileRequests, this.#ringMoves,
  ];

  constructor() {
    for (const metric of this.#cells) this.registry.registerMetric(asMetric(metric));
    for (const gauge of Object.keys(GAUGES) as GaugeName[]) this.#gauge(gauge);
  }

  handlerRun(
    resource: string, handler: string, kind: HandlerKind, outcome: HandlerOutcome, seconds: number | undefined,
  ): void {
    this.#handlerRuns.inc(resource, handler, kind, outcome);
    if (seconds !== undefined) this.#handlerDurations.observe(seconds, resource, handler, kind);
  }

  queueWait(resource: string, seconds: number): void {
    this.#queueWaits.observe(seconds, resource);
  }

  watch(resource: string, namespace: string | null): WatchMetrics {
    const where = namespace ?? '\0'; // no namespace label for a cluster-wide stream
    const events = new Map<string, { value: number }>();
    return {
      event: (type) => {
        let cell = events.get(type);
        if (cell === undefined) events.set(type, cell = this.#watchEvents.cell(resource, where, type));
        cell.value++;
      },
      restart: (reason: WatchRestartReason) => this.#watchRestarts.inc(resource, where, reason),
    };
  }

  apiRequest(verb: string, resource: string, code: number, seconds: number): void {
    this.#apiRequests.inc(verb, resource, codeText(code));
    this.#apiDurations.observe(seconds, verb);
  }

  apiThrottled(verb: string, seconds: number): void {
    this.#apiThrottled.observe(seconds, verb);
  }

  webhookRequest(webhook: string, code: number, seconds: number): void {
    this.#webhookRequests.inc(webhook, codeText(code));
    this.#webhookDurations.observe(seconds, webhook);
  }

  unserved(resource: string, namespace?: string): void {
    if (namespace !== undefined) {
      for (const metric of [this.#watchEvents, this.#watchRestarts]) metric.forget({ resource, namespace });
      return;
    }
    for (const metric of this.#cells) {
      if (metric !== this.#webhookRequests && metric !== this.#ringMoves) metric.forget({ resource });
    }
  }

  /** How many series the counters and histograms have now (the gauges' are their readers'). */
  get seriesCount(): number {
    return this.#cells.reduce((sum, metric) => sum + metric.size, 0);
  }

  observe(gauge: GaugeName, labels: GaugeLabels, read: () => number): () => void {
    return this.observeSeries(gauge, () => [[labels, read()]]);
  }

  observeSeries(gauge: GaugeName, read: Reader): () => void {
    const readers = this.#readers.get(gauge)!;
    readers.add(read);
    return () => { readers.delete(read); };
  }

  reconcileRequest(resource: string, trigger: ReconcileTrigger): void {
    this.#reconcileRequests.inc(resource, trigger);
  }

  ringMove(ring: string, reason: RingMoveReason): void {
    this.#ringMoves.inc(ring, reason);
  }

  /**
   * Stops what the process metrics keep running between scrapes, when the operator stops; their
   * values are frozen from then on.
   */
  close(): void {
    this.#stopProcessMetrics();
  }

  /** The exposition in Prometheus's text format, and its content type. */
  async exposition(): Promise<{ type: string; text: string }> {
    return { type: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** A gauge whose value is its readers' sum per set of labels, read when scraped. */
  #gauge(name: GaugeName): void {
    const readers = new Set<Reader>();
    this.#readers.set(name, readers);
    new Gauge({
      ...GAUGES[name], registers: [this.registry],
      collect() {
        this.reset();
        for (const read of readers) for (const [labels, value] of read()) this.inc(labels, value);
      },
    });
  }
}

/** Status codes as label values, made once each: a report passes a number. */
const CODES = new Map<number, string>();

function codeText(code: number): string {
  let text = CODES.get(code);
  if (text === undefined) CODES.set(code, text = String(code));
  return text;
}
