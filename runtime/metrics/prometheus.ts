/**
 * The operator's metrics in Prometheus's form, with prom-client: a registry of the operator's own
 * (several operators in one process count apart), Node's process metrics, and the instruments the
 * runtime reports to (`observation/metrics.ts`; their reference is docs/metrics.md).
 *
 * The hot paths' calls find their labelled series in maps keyed by the label values, so that a
 * report costs a lookup and an addition; the gauges are read only when scraped.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type {
  GaugeLabels, GaugeName, HandlerKind, HandlerOutcome, OperatorMetrics, WatchMetrics, WatchRestartReason,
} from '../observation/metrics.ts';

/** A counter's or histogram's series, by the label values joined. */
type Series<S> = Map<string, S>;

interface Reader {
  labels: GaugeLabels;
  read: () => number;
}

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
};

export class PrometheusMetrics implements OperatorMetrics {
  readonly registry = new Registry();
  readonly #readers = new Map<GaugeName, Set<Reader>>();

  readonly #handlerRuns: Counter<string>;
  readonly #handlerDurations: Histogram<string>;
  readonly #queueWaits: Histogram<string>;
  readonly #watchEvents: Counter<string>;
  readonly #watchRestarts: Counter<string>;
  readonly #apiRequests: Counter<string>;
  readonly #apiDurations: Histogram<string>;
  readonly #apiThrottled: Histogram<string>;
  readonly #webhookRequests: Counter<string>;
  readonly #webhookDurations: Histogram<string>;

  readonly #runs: Series<Counter.Internal> = new Map();
  readonly #durations: Series<Histogram.Internal<string>> = new Map();
  readonly #waits: Series<Histogram.Internal<string>> = new Map();
  readonly #requests: Series<Counter.Internal> = new Map();
  readonly #requestDurations: Series<Histogram.Internal<string>> = new Map();

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#handlerRuns = new Counter({
      name: 'kopf_handler_runs_total', help: 'Handler runs, by how they ended.', registers,
      labelNames: ['resource', 'handler', 'kind', 'outcome'],
    });
    this.#handlerDurations = new Histogram({
      name: 'kopf_handler_duration_seconds', help: 'Seconds a handler run took.', registers,
      labelNames: ['resource', 'handler', 'kind'],
    });
    this.#queueWaits = new Histogram({
      name: 'kopf_queue_wait_seconds', help: 'Seconds from an event\'s arrival to its processing.', registers,
      labelNames: ['resource'],
    });
    this.#watchEvents = new Counter({
      name: 'kopf_watch_events_total', help: 'Events received by the watch streams.', registers,
      labelNames: ['resource', 'namespace', 'type'],
    });
    this.#watchRestarts = new Counter({
      name: 'kopf_watch_restarts_total', help: 'Watch streams opened again, by why.', registers,
      labelNames: ['resource', 'namespace', 'reason'],
    });
    this.#apiRequests = new Counter({
      name: 'kopf_api_requests_total', help: 'HTTP requests to the API server (every attempt).', registers,
      labelNames: ['verb', 'resource', 'code'],
    });
    this.#apiDurations = new Histogram({
      name: 'kopf_api_request_duration_seconds', help: 'Seconds until the API server\'s response.', registers,
      labelNames: ['verb'],
    });
    this.#apiThrottled = new Histogram({
      name: 'kopf_api_throttled_wait_seconds', registers, labelNames: ['verb'],
      help: 'Seconds waited before a retry after the API server answered 429 (Too Many Requests).',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 20, 30, 60],
    });
    this.#webhookRequests = new Counter({
      name: 'kopf_webhook_requests_total', help: 'Admission reviews answered, by HTTP status.', registers,
      labelNames: ['webhook', 'code'],
    });
    this.#webhookDurations = new Histogram({
      name: 'kopf_webhook_duration_seconds', help: 'Seconds an admission review took to answer.', registers,
      labelNames: ['webhook'],
    });
    for (const gauge of Object.keys(GAUGES) as GaugeName[]) this.#gauge(gauge);
  }

  handlerRun(
    resource: string, handler: string, kind: HandlerKind, outcome: HandlerOutcome, seconds: number | undefined,
  ): void {
    const key = `${resource}\0${handler}\0${kind}`;
    series(this.#runs, `${key}\0${outcome}`, () => this.#handlerRuns.labels(resource, handler, kind, outcome)).inc();
    if (seconds === undefined) return;
    series(this.#durations, key, () => this.#handlerDurations.labels(resource, handler, kind)).observe(seconds);
  }

  queueWait(resource: string, seconds: number): void {
    series(this.#waits, resource, () => this.#queueWaits.labels(resource)).observe(seconds);
  }

  watch(resource: string, namespace: string | null): WatchMetrics {
    const labels = namespace === null ? { resource } : { resource, namespace };
    const events = new Map<string, Counter.Internal>();
    return {
      event: (type) => series(events, type, () => this.#watchEvents.labels({ ...labels, type })).inc(),
      restart: (reason: WatchRestartReason) => this.#watchRestarts.inc({ ...labels, reason }),
    };
  }

  apiRequest(verb: string, resource: string, code: number, seconds: number): void {
    const key = `${verb}\0${resource}\0${code}`;
    series(this.#requests, key, () => this.#apiRequests.labels(verb, resource, String(code))).inc();
    series(this.#requestDurations, verb, () => this.#apiDurations.labels(verb)).observe(seconds);
  }

  apiThrottled(verb: string, seconds: number): void {
    this.#apiThrottled.observe({ verb }, seconds);
  }

  webhookRequest(webhook: string, code: number, seconds: number): void {
    this.#webhookRequests.inc({ webhook, code: String(code) });
    this.#webhookDurations.observe({ webhook }, seconds);
  }

  observe(gauge: GaugeName, labels: GaugeLabels, read: () => number): () => void {
    const reader = { labels, read };
    const readers = this.#readers.get(gauge)!;
    readers.add(reader);
    return () => { readers.delete(reader); };
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
        for (const { labels, read } of readers) this.inc(labels, read());
      },
    });
  }
}

/** The series of these label values, made at its first use. */
function series<S>(map: Series<S>, key: string, make: () => S): S {
  let found = map.get(key);
  if (found === undefined) map.set(key, found = make());
  return found;
}
