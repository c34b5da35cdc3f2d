/**
 * The metrics endpoint: the Prometheus text exposition on GET of its path, 405 for other methods,
 * 404 for other paths; one server for it and the liveness endpoint when they share a host and port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { livenessRoute } from '../../../runtime/activities/probing.ts';
import { metricsRoute } from '../../../runtime/metrics/endpoint.ts';
import { PrometheusMetrics } from '../../../runtime/metrics/prometheus.ts';
import { Endpoints } from '../../../runtime/servers/endpoints.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { value } from '../../e2e/metrics/exposition.ts';

const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [captureLogs().sink] }));
const alive = { probe: async () => new Map([['ok', true]]), problem: () => null };

async function withEndpoints(
  urls: { liveness: string; metrics: string }, metrics: PrometheusMetrics,
  fn: (served: { liveness: string; metrics: string }) => Promise<void>,
): Promise<void> {
  const routes = [livenessRoute(urls.liveness, alive, logger), metricsRoute(urls.metrics, metrics, logger)];
  const endpoints = await Endpoints.serve(routes, logger);
  try {
    await fn({ liveness: endpoints.url(urls.liveness)!, metrics: endpoints.url(urls.metrics)! });
  } finally {
    await endpoints.close();
  }
}

test('GET serves the exposition with the registry\'s content type; other methods 405, other paths 404', async () => {
  const metrics = new PrometheusMetrics();
  metrics.handlerRun('kopfexamples.v1.kopf.dev', 'create_fn', 'change', 'success', 0.25);
  const urls = { liveness: 'http://127.0.0.1:0/healthz', metrics: 'http://127.0.0.1:0/metrics' };
  await withEndpoints(urls, metrics, async (served) => {
    const response = await fetch(served.metrics);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), metrics.registry.contentType);
    const text = await response.text();
    const labels = 'resource="kopfexamples.v1.kopf.dev",handler="create_fn",kind="change",outcome="success"';
    assert.ok(text.includes(`\nkopf_handler_runs_total{${labels}} 1\n`), text);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.equal((await fetch(served.metrics, { method: 'POST', body: 'x' })).status, 405);
    assert.equal((await fetch(served.metrics, { method: 'DELETE' })).status, 405);
    assert.equal((await fetch(new URL('/metricsz', served.metrics))).status, 404);
  });
});

test('the liveness endpoint and the metrics on one host and port are served by one server', async () => {
  const metrics = new PrometheusMetrics();
  const urls = { liveness: 'http://127.0.0.1:0/healthz', metrics: 'http://127.0.0.1:0/metrics' };
  await withEndpoints(urls, metrics, async (served) => {
    assert.equal(new URL(served.liveness).port, new URL(served.metrics).port);
    assert.deepEqual(await (await fetch(served.liveness)).json(), { ok: true });
    assert.equal((await fetch(served.metrics)).status, 200);
  });
});

test('on different ports, each is served on its own, and neither answers the other\'s path', async () => {
  const metrics = new PrometheusMetrics();
  const urls = { liveness: 'http://127.0.0.1:0/healthz', metrics: 'http://localhost:0/metrics' };
  await withEndpoints(urls, metrics, async (served) => {
    assert.notEqual(new URL(served.liveness).port, new URL(served.metrics).port);
    assert.equal((await fetch(new URL('/metrics', served.liveness))).status, 404);
    assert.equal((await fetch(new URL('/healthz', served.metrics))).status, 404);
  });
});

test('two endpoints at the same URL are refused', async () => {
  const metrics = new PrometheusMetrics();
  const url = 'http://127.0.0.1:0/same';
  await assert.rejects(
    Endpoints.serve([livenessRoute(url, alive, logger), metricsRoute(url, metrics, logger)], logger), /same URL/,
  );
});

test('operators count apart: each has a registry of its own', async () => {
  const one = new PrometheusMetrics(), other = new PrometheusMetrics();
  one.webhookRequest('validate1', 200, 0.01);
  assert.match(await one.registry.metrics(), /^kopf_webhook_requests_total\{webhook="validate1",code="200"\} 1$/m);
  assert.doesNotMatch(await other.registry.metrics(), /^kopf_webhook_requests_total\{/m);
});

test('histograms are cumulative per bucket, with their sum and count; a cluster-wide stream has no namespace', async (
) => {
  const metrics = new PrometheusMetrics();
  for (const seconds of [0.001, 0.02, 0.02, 3, 100]) metrics.apiRequest('GET', 'pods.v1', 200, seconds);
  metrics.watch('pods.v1', null).event('ADDED');
  metrics.watch('pods.v1', 'ns1').event('ADDED');
  metrics.watch('pods.v1', 'ns1').event('ADDED');
  const text = await metrics.registry.metrics();
  const bucket = (le: string) => value(text, 'kopf_api_request_duration_seconds_bucket', { le, verb: 'GET' });
  assert.deepEqual(['0.005', '0.025', '2.5', '5', '10', '+Inf'].map(bucket), [1, 3, 3, 4, 4, 5]);
  assert.equal(value(text, 'kopf_api_request_duration_seconds_count', { verb: 'GET' }), 5);
  const sum = value(text, 'kopf_api_request_duration_seconds_sum', { verb: 'GET' })!;
  assert.ok(Math.abs(sum - 103.041) < 1e-9, String(sum));
  assert.equal(value(text, 'kopf_watch_events_total', { resource: 'pods.v1', type: 'ADDED' }), 1);
  assert.equal(value(text, 'kopf_watch_events_total', { resource: 'pods.v1', namespace: 'ns1', type: 'ADDED' }), 2);
});
