/**
 * The reporting places, each against a recording of what it reports: handler runs and their
 * outcomes, queue waits and depth, watch events and restarts by reason, API requests and the waits
 * of 429s; the gauges' readers; how resources are named.
 */
import { test } from 'node:test';
import { ev, req, type Named } from '../queueing/requests.ts';
import assert from 'node:assert/strict';
import type {
  GaugeLabels, GaugeName, HandlerKind, HandlerOutcome, OperatorMetrics, ReconcileTrigger, RingMoveReason, WatchMetrics,
  WatchRestartReason,
} from '../../../runtime/observation/metrics.ts';
import { pathResource, resourceLabel } from '../../../runtime/observation/resource-names.ts';
import { PrometheusMetrics } from '../../../runtime/metrics/prometheus.ts';
import { executeOnce } from '../../../runtime/handling/execution.ts';
import { handlerObserver } from '../../../runtime/handling/observers.ts';
import { ObjectQueues } from '../../../runtime/queueing/workers.ts';
import { watchStream } from '../../../runtime/kube/index.ts';
import { Timestamp, freshState } from '../../../runtime/progress/index.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import type { HandlerBase } from '../../../runtime/registry/handlers.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { clientOf, sendJson, startServer, status } from '../kube/fake-server.ts';
import { Things, line, obj, startWatch } from '../kube/watching/streams.ts';
import { value } from '../../e2e/metrics/exposition.ts';
import { admissionResponder } from '../../../runtime/admission/responder.ts';
import { AdmissionError } from '../../../runtime/admission/admission-errors.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

/** Every report, as a line: `run … fn change retry timed`, `event … ADDED`, `api PATCH things.v1.example.com 429`. */
class Recorded implements OperatorMetrics {
  readonly lines: string[] = [];
  handlerRun(resource: string, handler: string, kind: HandlerKind, outcome: HandlerOutcome, s: number | undefined) {
    this.lines.push(`run ${resource} ${handler} ${kind} ${outcome} ${s === undefined ? 'untimed' : 'timed'}`);
  }
  queueWait(resource: string, seconds: number) { this.lines.push(`wait ${resource} ${seconds >= 0}`); }
  watch(resource: string, namespace: string | null): WatchMetrics {
    return {
      event: (type: string) => this.lines.push(`event ${resource} ${namespace} ${type}`),
      restart: (reason: WatchRestartReason) => this.lines.push(`restart ${resource} ${namespace} ${reason}`),
    };
  }
  apiRequest(verb: string, resource: string, code: number) { this.lines.push(`api ${verb} ${resource} ${code}`); }
  apiThrottled(verb: string, seconds: number) { this.lines.push(`throttled ${verb} ${seconds}`); }
  webhookRequest(webhook: string, code: number) { this.lines.push(`webhook ${webhook} ${code}`); }
  unserved(resource: string, namespace?: string) { this.lines.push(`unserved ${resource} ${namespace}`); }
  observe(_gauge: GaugeName, _labels: GaugeLabels, _read: () => number) { return () => undefined; }
  observeSeries(_gauge: GaugeName, _read: () => Iterable<readonly [GaugeLabels, number]>) { return () => undefined; }
  reconcileRequest(resource: string, trigger: ReconcileTrigger) { this.lines.push(`reconcile ${resource} ${trigger}`); }
  ringMove(ring: string, reason: RingMoveReason) { this.lines.push(`move ${ring} ${reason}`); }
}

const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [captureLogs().sink] }));

test('resources are named plural.version.group, the core group\'s plural.version; paths name theirs or none', () => {
  assert.equal(resourceLabel(Things), 'things.v1.example.com');
  assert.equal(resourceLabel({ group: '', version: 'v1', plural: 'pods' }), 'pods.v1');
  const cases: [string, string][] = [
    ['/api/v1/namespaces/ns1/pods/pod-1/status', 'pods.v1'],
    ['/api/v1/pods', 'pods.v1'],
    ['/api/v1/namespaces', 'namespaces.v1'],
    ['/api/v1/namespaces/ns1', 'namespaces.v1'],
    ['/apis/example.com/v1/namespaces/ns1/things/thing-1', 'things.v1.example.com'],
    ['/apis/example.com/v1/things', 'things.v1.example.com'],
    ['/apis/coordination.k8s.io/v1/namespaces/ns1/leases/lease-1', 'leases.v1.coordination.k8s.io'],
    ['/apis/example.com/v1', ''],
    ['/apis', ''],
    ['/api', ''],
    ['/version', ''],
  ];
  for (const [path, label] of cases) assert.equal(pathResource(path), label, path);
});

function handler(overrides: Partial<HandlerBase> = {}): HandlerBase {
  return { id: 'fn', fn: () => undefined, param: undefined, errors: undefined, timeout: undefined, retries: undefined,
    backoff: undefined, ...overrides };
}

test('a handler\'s run is reported with its outcome: success, retry, failure; one ended by its limits untimed', async (
) => {
  const metrics = new Recorded();
  const now = Timestamp.now();
  const observer = handlerObserver(metrics, 'things.v1.example.com', 'change');
  const options = { defaultBackoff: 60, logger, now, observer };
  await executeOnce(handler(), undefined, options, async () => 'ok');
  await executeOnce(handler(), undefined, options, async () => { throw new TemporaryError('later', { delay: 1 }); });
  await executeOnce(handler(), undefined, options, async () => { throw new Error('arbitrary: retried'); });
  await executeOnce(handler(), undefined, options, async () => { throw new PermanentError('never'); });
  const spent = { ...freshState(now, 'create'), retries: 3 };
  await executeOnce(handler({ retries: 3 }), spent, options, async () => 'not called');
  await executeOnce(handler(), undefined, { defaultBackoff: 60, logger, now }, async () => 'not reported');
  assert.deepEqual(metrics.lines, [
    'run things.v1.example.com fn change success timed',
    'run things.v1.example.com fn change retry timed',
    'run things.v1.example.com fn change retry timed',
    'run things.v1.example.com fn change failure timed',
    'run things.v1.example.com fn change failure untimed',
  ]);
});

test('the queue reports each event\'s wait, and counts the objects waiting and in progress when asked', async () => {
  const waits: number[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const processed: string[] = [];
  const queue = new ObjectQueues<Named<string>>(async (key, { event: { name: event } }) => {
    processed.push(`${key}:${event}`);
    if (key === 'a' && event === '1') await held;
  }, { workerLimit: 1, waited: (seconds) => waits.push(seconds) });
  queue.enqueue('a', ev('1'));
  queue.enqueue('b', ev('1'));
  queue.enqueue('a', ev('2'));
  queue.enqueue('a', ev('3')); // replaces '2': one wait for both
  assert.equal(queue.processing, 1);
  assert.equal(queue.waiting, 2, 'a newer event of a, and b in line');
  release();
  await queue.settle((running) => running.then(() => undefined));
  assert.deepEqual(processed, ['a:1', 'a:3', 'b:1']);
  assert.equal(waits.length, 3);
  assert.ok(waits.every((seconds) => seconds >= 0));
  assert.equal(queue.waiting + queue.processing, 0);
});

test('a request queued during its object\'s cycle is timed from its own arrival, not the last event\'s', async () => {
  const waits: number[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const queue = new ObjectQueues<Named<string>>(async (_key, { event: { name: event } }) => {
    if (event === 'event') await held;
  }, { waited: (seconds) => waits.push(seconds) });
  queue.enqueue('a', ev('event'));
  const pushed = performance.now();
  // Time passes while the event's cycle runs: that is what the request must not be charged with.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const sinceEvent = (performance.now() - pushed) / 1000;
  queue.enqueue('a', req('request'));
  release();
  await queue.settle((running) => running.then(() => undefined));
  assert.equal(waits.length, 2);
  assert.ok(waits[1]! < sinceEvent, `the request waited ${waits[1]} s, not the ${sinceEvent} s since the event`);
});

test('a watch stream reports its events, and each restart with why; its requests are reported as WATCH', async (t) => {
  const metrics = new Recorded();
  let watches = 0;
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    watches++;
    startWatch(res);
    if (watches === 1) { // an event and a bookmark, then the server ends the stream
      res.write(line('ADDED', obj('a', '2')));
      res.end(line('BOOKMARK', { metadata: { resourceVersion: '3' } }));
    } else if (watches === 2) res.end(line('ERROR', status(410, 'Expired', 'too old'))); // re-listed
    else if (watches === 3) res.end('not json\n');
    else if (watches === 4) res.write(line('MODIFIED', obj('a', '4'))); // then silent
  });
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  const client = clientOf(server, { metrics });
  const watched = metrics.watch('things.v1.example.com', 'ns');
  // Ended by the last restart of the scenario: the stream silent past its inactivity timeout.
  const restart = (reason: WatchRestartReason) => {
    watched.restart(reason);
    if (reason === 'inactivity') controller.abort();
  };
  const options = { signal: controller.signal, inactivityTimeout: 0.3, errorBackoffs: [0.01, 0.01, 0.01],
    metrics: { event: watched.event, restart } };
  for await (const _ of watchStream(client, Things, options)); // lint-ignore: drained until the signal
  const reported = metrics.lines.filter((l) => !l.startsWith('api GET'));
  assert.deepEqual(reported, [
    'api WATCH things.v1.example.com 200',
    'event things.v1.example.com ns ADDED',
    'event things.v1.example.com ns BOOKMARK',
    'restart things.v1.example.com ns closed',
    'api WATCH things.v1.example.com 200',
    'restart things.v1.example.com ns expired',
    'api WATCH things.v1.example.com 200',
    'restart things.v1.example.com ns malformed',
    'api WATCH things.v1.example.com 200',
    'event things.v1.example.com ns MODIFIED',
    'restart things.v1.example.com ns inactivity',
  ]);
  assert.deepEqual(metrics.lines.filter((l) => l.startsWith('api GET')), [
    'api GET things.v1.example.com 200', 'api GET things.v1.example.com 200', // the listing, and after the 410
  ]);
});

test('a request\'s attempts are reported with their codes; a 429\'s wait as throttling', async (t) => {
  const metrics = new Recorded();
  let calls = 0;
  const server = await startServer((_req, res) => {
    if (calls++ === 0) return sendJson(res, 429, status(429, 'TooManyRequests', 'later'), { 'Retry-After': '0.05' });
    if (calls === 2) return sendJson(res, 503, status(503, 'Unavailable', 'busy'));
    sendJson(res, 200, obj('a', '1'));
  });
  t.after(() => server.close());
  const client = clientOf(server, { metrics, enforceRetryAfter: true });
  await client.request('PATCH', '/apis/example.com/v1/namespaces/ns/things/a', { body: {} });
  assert.deepEqual(metrics.lines, [
    'api PATCH things.v1.example.com 429',
    'throttled PATCH 0.05',
    'api PATCH things.v1.example.com 503',
    'api PATCH things.v1.example.com 200',
  ]);
  client.close();
});

test('gauges read their readers when scraped: readers of the same labels add up, and stop when told', async () => {
  const metrics = new PrometheusMetrics();
  let depth = 3;
  const stopOne = metrics.observe('queueDepth', { resource: 'things.v1.example.com' }, () => depth);
  metrics.observe('queueDepth', { resource: 'things.v1.example.com' }, () => 2);
  metrics.observe('queueDepth', { resource: 'pods.v1' }, () => 1);
  let text = await metrics.registry.metrics();
  assert.equal(value(text, 'kopf_queue_depth', { resource: 'things.v1.example.com' }), 5);
  assert.equal(value(text, 'kopf_queue_depth', { resource: 'pods.v1' }), 1);
  depth = 10;
  stopOne();
  text = await metrics.registry.metrics();
  assert.equal(value(text, 'kopf_queue_depth', { resource: 'things.v1.example.com' }), 2);
});

test('a gauge of series that come and go gives, at each scrape, those its reader gives then', async () => {
  const metrics = new PrometheusMetrics();
  let held = new Map([['ring-a', 3], ['ring-b', 1]]);
  const series = () => [...held].map(([member, count]) => [{ ring: 'r', member }, count] as const);
  metrics.observeSeries('ringObjects', series);
  let text = await metrics.registry.metrics();
  assert.equal(value(text, 'kopf_ring_objects', { ring: 'r', member: 'ring-a' }), 3);
  assert.equal(value(text, 'kopf_ring_objects', { ring: 'r', member: 'ring-b' }), 1);
  held = new Map([['ring-a', 4]]);
  text = await metrics.registry.metrics();
  assert.equal(value(text, 'kopf_ring_objects', { ring: 'r', member: 'ring-a' }), 4);
  assert.equal(value(text, 'kopf_ring_objects', { ring: 'r', member: 'ring-b' }), undefined);
});

test('reconcile requests and ring moves are counted by their fixed labels', async () => {
  const metrics = new PrometheusMetrics();
  metrics.reconcileRequest('pods.v1', 'owned');
  metrics.reconcileRequest('pods.v1', 'owned');
  metrics.reconcileRequest('pods.v1', 'resync');
  metrics.ringMove('r', 'failover');
  const text = await metrics.registry.metrics();
  assert.equal(value(text, 'kopf_reconcile_requests_total', { resource: 'pods.v1', trigger: 'owned' }), 2);
  assert.equal(value(text, 'kopf_reconcile_requests_total', { resource: 'pods.v1', trigger: 'resync' }), 1);
  assert.equal(value(text, 'kopf_ring_moves_total', { ring: 'r', reason: 'failover' }), 1);
});

test('webhook reviews are reported by handler id and status; an id the operator does not have is no label', async (
) => {
  const metrics = new Recorded();
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check_field({ spec }) {
    if (spec.field === 'wrong') throw new AdmissionError('wrong', 422);
  });
  const settings = defaultSettings();
  const respond = admissionResponder({
    webhooks: registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample })),
    client: clientOf({ url: 'http://127.0.0.1:9' }), settings, logger, memo: {},
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    cancelled: new AbortController().signal, indices: new OperatorIndexers([]).indices, metrics,
  });
  const review = (field: string) => JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {
      uid: 'uid-1', resource: { group: 'kopf.dev', version: 'v1', resource: 'kopfexamples' }, operation: 'CREATE',
      userInfo: { username: 'admin' }, object: { apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
        metadata: { name: 'kex1', namespace: 'ns1' }, spec: { field } },
    },
  });
  const send = (body: string, webhook?: string) => respond({ body, webhook, headers: {}, sslpeer: {} });
  await send(review('fine'), 'check_field');
  await send(review('wrong'), 'check_field');
  await send(review('fine'), `attacker-${'x'.repeat(1000)}`);
  await send('{not json', 'check_field');
  assert.deepEqual(metrics.lines, [
    'run kopfexamples.v1.kopf.dev check_field validate success timed',
    'webhook check_field 200',
    'run kopfexamples.v1.kopf.dev check_field validate failure timed',
    'webhook check_field 200',
    'webhook  404',
    'webhook check_field 400',
  ]);
});

test('a reconciler\'s run is reported as kind reconcile: success, retry after an error, failure when permanent',
  async () => {
    const { ResourceReconciler } = await import('../../../runtime/reconciling/reconciler.ts');
    const { KeptFields } = await import('../../../runtime/actions/inconsistencies.ts');
    const metrics = new Recorded();
    const errors = [undefined, new Error('arbitrary'), new PermanentError('never')];
    const registry = new OperatorRegistry();
    registry.on.reconcile(KopfExample, function converge() {
      const error = errors.shift();
      if (error) throw error;
    });
    const [reconciling] = registry.resourceHandlers;
    assert.equal(reconciling?.kind, 'reconcile');
    if (reconciling?.kind !== 'reconcile') return;
    const stopping = new AbortController();
    const scope = {
      resource: KopfExample, client: undefined as never, settings: defaultSettings(), kept: new KeptFields(),
      poster: undefined as never, logger, cancelled: stopping.signal, enqueue: () => undefined, metrics,
    };
    const env = { scope, enqueue: () => undefined, stopping: stopping.signal };
    const reconciler = new ResourceReconciler(reconciling, env);
    try {
      const triggers = [undefined, 'retry', 'owned'] as const;
      for (const [i, version] of ['1', '2', '3'].entries()) {
        const body = { metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: version } } as KubeObject;
        await reconciler.reconcile({ key: 'ns/a', body, context: { body } as never, logger, trigger: triggers[i] });
      }
    } finally {
      stopping.abort();
      reconciler.forget('ns/a');
    }
    assert.deepEqual(metrics.lines, [
      'reconcile kopfexamples.v1.kopf.dev change',
      'run kopfexamples.v1.kopf.dev converge reconcile success timed',
      'reconcile kopfexamples.v1.kopf.dev retry',
      'run kopfexamples.v1.kopf.dev converge reconcile retry timed',
      'reconcile kopfexamples.v1.kopf.dev owned',
      'run kopfexamples.v1.kopf.dev converge reconcile failure timed',
    ]);
  });
