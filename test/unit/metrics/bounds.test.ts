/**
 * The metrics stay bounded whatever the cluster holds: sub-handlers (whose ids an operator may make
 * of an object's content) are reported under their top-level handler, every label has a cap with
 * an overflow value and the metric a cap on its series, a namespace's or resource's series go with
 * it, and no control character reaches the exposition. Counts and sizes only; the time a scrape
 * takes is bench/metrics's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PrometheusMetrics } from '../../../runtime/metrics/prometheus.ts';
import { MAX_LABEL_LENGTH, MAX_LABEL_VALUES, MAX_SERIES, OVERFLOW } from '../../../runtime/metrics/labels.ts';
import { runPass, type PassEnv } from '../../../runtime/handling/running.ts';
import { handlerObserver } from '../../../runtime/handling/observers.ts';
import { allAtOnce } from '../../../runtime/handling/lifecycles.ts';
import { OperatorRegistry, subhandlerOf } from '../../../runtime/registry/registry.ts';
import type { ChangingHandler } from '../../../runtime/registry/handlers.ts';
import { Timestamp, type HandlerState } from '../../../runtime/progress/index.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { pumpEvents, type Pump } from '../../../runtime/watching/pump.ts';
import { WatchFreshness } from '../../../runtime/kube/watching/freshness.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { Things, line, obj, startWatch } from '../kube/watching/streams.ts';
import { samples, total } from '../../e2e/metrics/exposition.ts';

const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [() => undefined] }));
const RESOURCE = 'kopfexamples.v1.kopf.dev';
const ITEMS = 10;

/** `create_fn`, which registers a sub-handler per item of the object, as docs/handlers.md's `{ id: item }`. */
function parentHandler(): ChangingHandler {
  const registry = new OperatorRegistry();
  registry.on.create('kopfexamples', async function create_fn() {});
  return registry.resourceHandlers[0] as ChangingHandler;
}

/** One object's creation: its parent handler and its items' sub-handlers, each run once. */
async function handleObject(metrics: PrometheusMetrics, parent: ChangingHandler, name: string): Promise<void> {
  const states = new Map<string, HandlerState>();
  const env: PassEnv = {
    reason: 'create', states, lifecycle: allAtOnce, defaultBackoff: 60, logger, now: Timestamp.now(),
    results: new Map(), observer: handlerObserver(metrics, RESOURCE, 'change'),
    invoke: async (handler, _attempt, children) => {
      if (handler !== parent) return; // a sub-handler registers none of its own
      for (let i = 0; i < ITEMS; i++) {
        children.registered.push(subhandlerOf(parent, async () => {}, { id: `${name}-item-${i}` }));
      }
    },
  };
  await runPass([parent], env);
  assert.ok(states.get(`create_fn/${name}-item-0`)?.success, 'the sub-handlers ran');
}

/** What an operator's objects make the API client and the watch streams report, besides the handlers. */
function trafficOf(metrics: PrometheusMetrics, namespace: string): void {
  metrics.apiRequest('PATCH', RESOURCE, 200, 0.01);
  metrics.queueWait(RESOURCE, 0.001);
  metrics.watch(RESOURCE, namespace).event('MODIFIED');
}

test('sub-handlers count under their parent: series do not grow with objects or sub-handlers', async () => {
  const metrics = new PrometheusMetrics();
  const parent = parentHandler();
  const seriesAfter = async (objects: number, from = 0) => {
    for (let i = from; i < objects; i++) {
      await handleObject(metrics, parent, `obj-${i}`);
      trafficOf(metrics, `ns-${i % 10}`);
    }
    return metrics.seriesCount;
  };
  const few = await seriesAfter(10);
  const many = await seriesAfter(10_000, 10); // 100,000 sub-handler runs
  assert.equal(many, few);
  const text = await metrics.registry.metrics();
  metrics.close();
  const runs = (handler: string) => total(text, 'kopf_handler_runs_total', { handler });
  assert.equal(runs('create_fn'), 10_000 * (ITEMS + 1));
  assert.deepEqual(new Set(samples(text).map((s) => s.labels.handler).filter(Boolean)), new Set(['create_fn']));
  assert.ok(Buffer.byteLength(text) < 1_000_000, `a scrape of ${Buffer.byteLength(text)} bytes`);
});

test('past a label\'s cap, values count as the overflow; past the series\' cap, all labels do', async () => {
  const metrics = new PrometheusMetrics();
  for (let i = 0; i < 5000; i++) metrics.handlerRun(RESOURCE, `content-${i}`, 'change', 'success', undefined);
  let text = await metrics.registry.metrics();
  const runsOf = (exposition: string) => samples(exposition).filter((s) => s.name === 'kopf_handler_runs_total');
  const handlers = new Set(runsOf(text).map((s) => s.labels.handler));
  assert.equal(handlers.size, MAX_LABEL_VALUES + 1);
  assert.ok(handlers.has(OVERFLOW));
  assert.equal(total(text, 'kopf_handler_runs_total'), 5000, 'nothing is lost, only pooled');
  // Many resources, each under its cap of handlers, reach the metric's cap of series.
  for (let r = 0; r < 100; r++) {
    for (let i = 0; i < 50; i++) metrics.handlerRun(`r${r}`, `h${i}`, 'change', 'success', undefined);
  }
  text = await metrics.registry.metrics();
  assert.equal(runsOf(text).length, MAX_SERIES + 1);
  assert.equal(total(text, 'kopf_handler_runs_total', { resource: OVERFLOW, handler: OVERFLOW }) > 0, true);
  assert.equal(total(text, 'kopf_handler_runs_total'), 5000 + 100 * 50);
  metrics.close();
});

test('no control character reaches the exposition; values that show the same share a series', async () => {
  const metrics = new PrometheusMetrics();
  const hostile = ['bad\nid', 'bad\rid', 'bad\u202eid', 'bad\u0000id', 'bad\u0085id', 'bad\u2028id'];
  for (const id of hostile) metrics.handlerRun(RESOURCE, id, 'change', 'success', 0.1);
  metrics.handlerRun(RESOURCE, 'quote"back\\slash', 'change', 'success', 0.1);
  metrics.handlerRun(RESOURCE, 'x'.repeat(10_000), 'change', 'success', 0.1);
  metrics.watch(RESOURCE, 'ns\u001b[31m').event('ADDED');
  const text = await metrics.registry.metrics();
  metrics.close();
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/u);
  const runs = samples(text).filter((s) => s.name === 'kopf_handler_runs_total');
  assert.deepEqual(runs.map((s) => [s.labels.handler, s.value]), [
    ['bad\uFFFDid', hostile.length],
    ['quote\\"back\\\\slash', 1], // escaped as the format says
    [`${'x'.repeat(MAX_LABEL_LENGTH - 1)}…`, 1],
  ]);
  assert.equal(total(text, 'kopf_watch_events_total', { namespace: 'ns\uFFFD[31m' }), 1);
});

test('a namespace no longer served takes its streams\' series along; a resource all of its own', async () => {
  const metrics = new PrometheusMetrics();
  for (const namespace of ['ns1', 'ns2']) metrics.watch(RESOURCE, namespace).event('ADDED');
  metrics.watch('pods.v1', 'ns1').restart('closed');
  metrics.handlerRun(RESOURCE, 'create_fn', 'change', 'success', 0.1);
  metrics.handlerRun('pods.v1', 'pod_fn', 'event', 'success', 0.1);
  metrics.apiRequest('GET', RESOURCE, 200, 0.1);
  metrics.unserved(RESOURCE, 'ns1');
  let text = await metrics.registry.metrics();
  const where = (name: string) => samples(text).filter((s) => s.name === name).map((s) => s.labels.namespace);
  assert.deepEqual(where('kopf_watch_events_total'), ['ns2']);
  assert.deepEqual(where('kopf_watch_restarts_total'), ['ns1'], 'another resource\'s stream in it stays');
  metrics.unserved(RESOURCE);
  text = await metrics.registry.metrics();
  metrics.close();
  const resources = new Set(samples(text).filter((s) => s.name.startsWith('kopf_')).map((s) => s.labels.resource));
  assert.deepEqual(resources, new Set(['pods.v1', undefined]));
  metrics.watch(RESOURCE, 'ns1').event('ADDED'); // served again: counted from zero
});

test('a stream stopped for good reports its namespace no longer served; a cluster-wide one does not', async (t) => {
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    startWatch(res);
    res.write(line('ADDED', obj('a', '2')));
  });
  t.after(() => server.close());
  const unserved: string[] = [];
  const metrics = new PrometheusMetrics();
  t.after(() => metrics.close());
  metrics.unserved = (resource, namespace) => { unserved.push(`${resource} ${namespace}`); };
  for (const namespace of ['ns1', null]) {
    const stop = new AbortController();
    const pump: Pump = {
      client: clientOf(server), served: { current: () => Things }, pauses: new ToggleSet(),
      freshness: new WatchFreshness(), inactivityTimeout: 60, serverTimeout: null, logger, metrics,
      push: () => stop.abort(),
    };
    await pumpEvents(pump, namespace, stop.signal);
  }
  assert.deepEqual(unserved, ['things.v1.example.com ns1']);
});
