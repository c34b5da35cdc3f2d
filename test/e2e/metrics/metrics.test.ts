/**
 * The operator's metrics on a real control plane, each checked against what happened: handlers
 * that succeed, retry and fail; the watch's events, its health and restarts when a proxy silences
 * it; the API requests, and a storm of 429s with the waits it asked for; the queue; a daemon;
 * a pause by peering; the leader; a webhook call. The endpoint shares the liveness endpoint's server.
 */
import { test } from 'node:test';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createObject, deleteObject, type KubeClient } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { peeringManifests, peeringResources } from '../../../runtime/peering/peering-resources.ts';
import { touch, type PeeringPlace } from '../../../runtime/peering/keepalive.ts';
import { AdmissionError } from '../../../runtime/admission/admission-errors.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { useFaultProxy } from '../faults/use-proxy.ts';
import { SILENCE, STALL, answer } from '../faults/proxy.ts';
import { withOperator } from '../engine/support.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { freePort } from '../ports.ts';
import { scrape, scrapeUntil, total, value } from './exposition.ts';

const cluster = useCluster({ crds: [CRD_YAML, ...peeringManifests('default').slice(0, 2)] });
const faultProxy = useFaultProxy(cluster);
const RESOURCE = 'kopfexamples.v1.kopf.dev';
const quiet = new Logger(new LogConfig({ verbosity: 'quiet' }));

function kex(name: string, spec: Record<string, unknown> = {}) {
  return { metadata: { name, namespace: 'default' }, spec };
}

async function remove(client: KubeClient, name: string): Promise<void> {
  await deleteObject(client, KopfExample, { namespace: 'default', name }).catch(() => undefined);
}

test('handlers that succeed, retry and fail are counted and timed; the watch, the queue, the API requests, a ' +
  'daemon and the activities too; one server serves the metrics and the liveness endpoint', async () => {
  const registry = new OperatorRegistry();
  registry.on.startup(function startup_fn() {});
  registry.on.create(KopfExample, function create_ok() {});
  let flakes = 0;
  registry.on.create(KopfExample, function create_flaky() {
    if (flakes++ === 0) throw new TemporaryError('not yet', { delay: 0.1 });
  });
  registry.on.create(KopfExample, function create_broken() { throw new PermanentError('never'); });
  registry.on.daemon(KopfExample, async function daemon_fn({ stopped }) { await stopped.wait(); });
  const urls = { liveness: 'http://127.0.0.1:0/healthz', metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, urls, async ({ op, capture }) => {
    assert.ok(op.metricsUrl && op.livenessUrl);
    assert.equal(new URL(op.metricsUrl).port, new URL(op.livenessUrl).port, 'one server for both');
    await createObject(cluster.client, KopfExample, kex('counted'));
    await capture.waitFor('Creation is processed: 2 succeeded; 1 failed.', { timeout: 60 });
    await capture.waitFor(/^Daemon 'daemon_fn' is invoked/, { timeout: 30 });
    // The results are written after the message, and their echo passes the queue: the figures that
    // follow settle once both are through.
    const patched = { verb: 'PATCH', resource: RESOURCE, code: '200' };
    const text = await scrapeUntil(op.metricsUrl, (t) => value(t, 'kopf_api_requests_total', patched)! >= 2
      && value(t, 'kopf_queue_depth', { resource: RESOURCE }) === 0
      && value(t, 'kopf_objects_in_progress', { resource: RESOURCE }) === 0);
    const runs = (handler: string, kind: string, outcome: string, resource = RESOURCE) =>
      value(text, 'kopf_handler_runs_total', { resource, handler, kind, outcome });
    assert.equal(runs('create_ok', 'change', 'success'), 1);
    assert.equal(runs('create_flaky', 'change', 'retry'), 1);
    assert.equal(runs('create_flaky', 'change', 'success'), 1);
    assert.equal(runs('create_broken', 'change', 'failure'), 1);
    assert.equal(runs('create_ok', 'change', 'failure'), undefined);
    assert.equal(runs('startup_fn', 'activity', 'success', ''), 1);
    const durations = { resource: RESOURCE, handler: 'create_flaky', kind: 'change' };
    assert.equal(value(text, 'kopf_handler_duration_seconds_count', durations), 2);
    assert.equal(value(text, 'kopf_daemons_running', { resource: RESOURCE }), 1);

    const watched = { resource: RESOURCE, namespace: 'default' };
    assert.ok(value(text, 'kopf_watch_events_total', { ...watched, type: 'ADDED' })! >= 1);
    assert.equal(value(text, 'kopf_watch_healthy', watched), 1);
    assert.ok(value(text, 'kopf_queue_wait_seconds_count', { resource: RESOURCE })! >= 2, 'the creation and the retry');
    assert.equal(value(text, 'kopf_queue_depth', { resource: RESOURCE }), 0);
    assert.ok(value(text, 'kopf_api_requests_total', { verb: 'WATCH', resource: RESOURCE, code: '200' })! >= 1);
    assert.ok(value(text, 'kopf_api_requests_total', { verb: 'GET', resource: RESOURCE, code: '200' })! >= 1);
    assert.ok(value(text, 'kopf_api_request_duration_seconds_count', { verb: 'PATCH' })! >= 2);
    assert.equal(value(text, 'kopf_paused'), 0);
    assert.ok(value(text, 'process_resident_memory_bytes')! > 0);
    assert.notEqual(value(text, 'nodejs_eventloop_lag_seconds'), undefined);
    assert.deepEqual(await (await fetch(op.livenessUrl)).json(), {});
  });
  await remove(cluster.client, 'counted');
});

test('a silenced watch is unhealthy until it is re-established, and its restart is counted', async () => {
  const proxy = await faultProxy();
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, function event_fn() {});
  const settings = defaultSettings({ posting: { enabled: false }, watching: { inactivityTimeout: 2 } });
  const options = { kubeconfig: proxy.kubeconfig, settings, metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, options, async ({ op, capture }) => {
    await capture.waitFor(/^Starting the watch-stream for kopfexamples/, { timeout: 30 });
    const url = op.metricsUrl!;
    const watched = { resource: RESOURCE, namespace: 'default' };
    const healthy = (text: string) => value(text, 'kopf_watch_healthy', watched);
    const restarts = (text: string) => value(text, 'kopf_watch_restarts_total', { ...watched, reason: 'inactivity' });
    // The stream is open (its head has come): from now on, only silence can stop it.
    const opened = { verb: 'WATCH', resource: RESOURCE, code: '200' };
    const before = await scrapeUntil(url, (text) => value(text, 'kopf_api_requests_total', opened) === 1);
    assert.equal(healthy(before), 1);
    assert.equal(restarts(before), undefined);

    // New watch requests are held unanswered; the open stream goes quiet.
    const stalled = proxy.inject({ path: /\/kopfexamples$/, watch: true }, STALL);
    const silenced = proxy.inject({ path: /\/kopfexamples$/, watch: true }, SILENCE, { open: true, times: 0 });
    // Given up after its inactivity timeout, and opened again (held by the proxy): stale then.
    await scrapeUntil(url, (text) => restarts(text)! >= 1);
    await scrapeUntil(url, (text) => healthy(text) === 0);
    // The held request is given up for its silence too, not after the client's request timeout
    // (minutes), and the retries are no sign of life: the stream stays stale meanwhile.
    const retried = await scrapeUntil(url, (text) => restarts(text)! >= 3);
    assert.equal(healthy(retried), 0);
    assert.ok(stalled.hits.count >= 2);

    stalled.remove();
    silenced.remove();
    stalled.cut();
    await scrapeUntil(url, (text) => healthy(text) === 1);
  });
});

test('a storm of 429s is counted by code, and the waits it asked for are visible', async () => {
  const proxy = await faultProxy();
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { return 'done'; });
  const options = { kubeconfig: proxy.kubeconfig, metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, options, async ({ op, capture }) => {
    const storm = proxy.inject(
      { method: 'PATCH', path: /\/kopfexamples\/throttled$/ }, answer(429, { retryAfter: 1 }), { times: 3 },
    );
    await createObject(cluster.client, KopfExample, kex('throttled'));
    await capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 60 });
    // The results are written after that message: through the storm, until the server takes them.
    await capture.waitFor(/^PATCH \S+\/kopfexamples\/throttled → 200 /, { timeout: 60 });
    assert.equal(storm.hits.count, 3);
    const text = await scrape(op.metricsUrl!);
    assert.equal(value(text, 'kopf_api_requests_total', { verb: 'PATCH', resource: RESOURCE, code: '429' }), 3);
    assert.equal(value(text, 'kopf_api_throttled_wait_seconds_count', { verb: 'PATCH' }), 3);
    assert.ok(value(text, 'kopf_api_throttled_wait_seconds_sum', { verb: 'PATCH' })! >= 3, 'at least Retry-After each');
  });
  await remove(cluster.client, 'throttled');
});

test('a pause by peering is kopf_paused 1, and 0 once the peer of a higher priority is gone', async () => {
  const [namespaced] = peeringResources(false).filter((r) => r.scope === 'Namespaced');
  assert.ok(namespaced);
  await createObject(cluster.client, namespaced, { metadata: { name: 'metrics', namespace: 'default' } });
  const place: PeeringPlace = { client: cluster.client, resource: namespaced, namespace: 'default', name: 'metrics' };
  const freezer = { identity: 'freezer', priority: 100, lifetime: 600, stealth: true };
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, function event_fn() {});
  const settings = defaultSettings({ posting: { enabled: false } });
  const options = { settings, peering: 'metrics', standalone: false, metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, options, async ({ op }) => {
    const url = op.metricsUrl!;
    await scrapeUntil(url, (text) => value(text, 'kopf_paused') === 0); // paused until peering's first look
    await touch(place, freezer, quiet);
    await scrapeUntil(url, (text) => value(text, 'kopf_paused') === 1);
    await touch(place, freezer, quiet, 0);
    await scrapeUntil(url, (text) => value(text, 'kopf_paused') === 0);
  });
});

test('the leader holds its Lease (kopf_leader 1); a replica that stands by does not (0)', async () => {
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, function event_fn() {});
  const options = { leaderElection: 'metrics-lease', metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, { ...options, identity: 'first' }, async ({ op: first, capture }) => {
    await capture.waitFor(/^Became the leader/, { timeout: 60 });
    const lease = { lease: 'default/metrics-lease' };
    assert.equal(value(await scrape(first.metricsUrl!), 'kopf_leader', lease), 1);
    await withOperator(cluster, registry, { ...options, identity: 'second' }, async ({ op: second, capture }) => {
      await capture.waitFor(/is held by first: standing by\.$/, { timeout: 60 });
      assert.equal(value(await scrape(second.metricsUrl!), 'kopf_leader', lease), 0);
      assert.equal(value(await scrape(second.metricsUrl!), 'kopf_paused'), 1);
    });
  });
});

test('a webhook call is counted by webhook and status, and its handler\'s run by outcome', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check_field({ spec }) {
    if (spec.field === 'wrong') throw new AdmissionError('The field is wrong.', 422);
  });
  const settings = defaultSettings({
    posting: { enabled: false },
    admission: { server: new WebhookServer({ addr: '127.0.0.1' }), managed: 'metrics.kopf.dev' },
  });
  await withOperator(cluster, registry, { settings, metrics: 'http://127.0.0.1:0/metrics' }, async ({ op }) => {
    // The API server reads the webhook configurations through a cache: tried until it calls the webhook.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const wrong = kex('hooked', { field: 'wrong' });
      const refused = await createObject(cluster.client, KopfExample, wrong, { dryRun: true })
        .then(() => false, (e: unknown) => String(e).includes('The field is wrong.'));
      if (refused) break;
      assert.ok(Date.now() < deadline, 'the API server calls the webhook');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await createObject(cluster.client, KopfExample, kex('hooked', { field: 'fine' }), { dryRun: true });
    const text = await scrape(op.metricsUrl!);
    const runs = (outcome: string) =>
      value(text, 'kopf_handler_runs_total', { resource: RESOURCE, handler: 'check_field', kind: 'validate', outcome });
    assert.equal(runs('success'), 1);
    assert.ok(runs('failure')! >= 1);
    const calls = value(text, 'kopf_webhook_requests_total', { webhook: 'check_field', code: '200' });
    assert.equal(calls, runs('success')! + runs('failure')!, 'a review answered per call');
    assert.equal(value(text, 'kopf_webhook_duration_seconds_count', { webhook: 'check_field' }), calls);
    assert.equal(total(text, 'kopf_webhook_requests_total', { code: '500' }), 0);
  });
});

test('kopf run --metrics serves the exposition on the liveness endpoint\'s server when both name one port', async (
) => {
  const port = await freePort();
  const operator = runOperator({
    files: [join(import.meta.dirname, '..', 'engine', 'fixtures', 'ticking.ts')],
    args: ['--standalone', '-n', 'default', '--verbose', '--metrics', `http://127.0.0.1:${port}/metrics`,
      '-L', `http://127.0.0.1:${port}/healthz`],
    kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  try {
    await operator.waitFor('Starting the watch-stream for kopfexamples');
    const text = await scrapeUntil(`http://127.0.0.1:${port}/metrics`, (t) => value(t, 'kopf_paused') === 0);
    assert.equal(value(text, 'kopf_watch_healthy', { resource: RESOURCE, namespace: 'default' }), 1);
    assert.ok(value(text, 'process_resident_memory_bytes')! > 0);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status, 405);
  } finally {
    const exit = await operator.stop();
    assert.equal(exit.exitCode, 0, exit.output);
  }
});
