/**
 * The liveness endpoint: the probes' results in Kopf's format, collected at most every 10 s, and
 * an error status when the operator is not running or its watches went silent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { livenessRoute, type LivenessSource } from '../../../runtime/activities/probing.ts';
import { Endpoints, parseEndpoint } from '../../../runtime/servers/endpoints.ts';
import { runActivity } from '../../../runtime/activities/activities.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { WatchFreshness } from '../../../runtime/kube/index.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { ResourceClient } from '../../../runtime/kube/index.ts';
import { PermanentError } from '../../../runtime/structs/errors.ts';

const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [captureLogs().sink] }));

async function withEndpoint(source: LivenessSource, fn: (url: string) => Promise<void>): Promise<void> {
  const endpoint = await serveLiveness(source, logger);
  try {
    await fn(endpoint.url);
  } finally {
    await endpoint.close();
  }
}

test('the probes\' results are served by handler id, as JSON; collected once for requests within 10 s', async () => {
  const registry = new OperatorRegistry();
  let calls = 0;
  registry.on.probe(function tasks_count() { calls++; return 3; });
  registry.on.probe(async function monitored_objects({ memo }) { return { default: [memo['name']] }; });
  registry.on.probe(function nothing() { return undefined; });
  const client = new ResourceClient(() => { throw new Error('no API in this test'); });
  const env = {
    settings: defaultSettings(),
    logger,
    memo: { name: 'kopf-example-1' },
    client,
    signal: new AbortController().signal,
  };
  const source = { probe: () => runActivity(registry.activityHandlers, 'probe', env), problem: () => null };
  await withEndpoint(source, async (url) => {
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { tasks_count: 3, monitored_objects: { default: ['kopf-example-1'] } });
    assert.deepEqual(
      await (await fetch(url)).json(),
      { tasks_count: 3, monitored_objects: { default: ['kopf-example-1'] } },
    );
    assert.equal(calls, 1);
    assert.equal((await fetch(new URL('/other', url))).status, 404);
  });
});

test('without probes the body is an empty object', async () => {
  await withEndpoint({ probe: async () => new Map(), problem: () => null }, async (url) => {
    assert.deepEqual(await (await fetch(url)).json(), {});
  });
});

test('a problem answers 503 with the reason; a failed probe 500', async () => {
  let problem: string | null = 'The operator is not running.';
  await withEndpoint({ probe: async () => new Map([['p', 1]]), problem: () => problem }, async (url) => {
    const red = await fetch(url);
    assert.equal(red.status, 503);
    assert.equal(await red.text(), 'The operator is not running.\n');
    problem = null;
    assert.equal((await fetch(url)).status, 200);
  });
  await withEndpoint({ probe: async () => { throw new Error('broken probe'); }, problem: () => null }, async (url) => {
    const failed = await fetch(url);
    assert.equal(failed.status, 500);
    assert.equal(await failed.text(), 'The probes failed; the operator\'s log says why.\n');
  });
});

test('a failed probe is named to the caller; its message, which may hold a secret, goes to the log only', async () => {
  const capture = captureLogs();
  const logged = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [capture.sink] }));
  const registry = new OperatorRegistry();
  registry.on.probe(function database() { throw new PermanentError('cannot reach postgres://admin:s3cret@db/app'); });
  registry.on.probe(function tasks_count() { return 3; });
  const client = new ResourceClient(() => { throw new Error('no API in this test'); });
  const env = { settings: defaultSettings(), logger: logged, memo: {}, client, signal: new AbortController().signal };
  const source = { probe: () => runActivity(registry.activityHandlers, 'probe', env), problem: () => null };
  const endpoint = await serveLiveness(source, logged);
  try {
    const failed = await fetch(endpoint.url);
    assert.equal(failed.status, 500);
    const text = await failed.text();
    assert.equal(text, 'The probes failed: database; the operator\'s log says why.\n');
    assert.doesNotMatch(text, /s3cret/);
    assert.ok(capture.messages().some((m) => m.startsWith('The probes failed:') && m.includes('s3cret')));
  } finally {
    await endpoint.close();
  }
});

test('a watch is stale once silent past its inactivity timeout, plus the wait before a retry it announced', () => {
  const clock = { now: 0 };
  const freshness = new WatchFreshness(() => clock.now);
  const stream = freshness.track('kopfexamples.v1.kopf.dev cluster-wide', 10);
  clock.now = 10_000;
  assert.deepEqual(freshness.stale(), []);
  clock.now = 10_500;
  assert.deepEqual(freshness.stale(), [{ name: 'kopfexamples.v1.kopf.dev cluster-wide', overdue: 0.5 }]);
  stream.alive();
  assert.deepEqual(freshness.stale(), []);
  stream.retrying(5);
  clock.now = 10_500 + 14_000;
  assert.deepEqual(freshness.stale(), []);
  clock.now = 10_500 + 16_000;
  assert.equal(freshness.stale().length, 1);
  stream.ended();
  assert.deepEqual(freshness.stale(), [], 'an ended stream is not watched');
});

test('the endpoint is an http URL; its host and port are where it listens', () => {
  assert.deepEqual(parseEndpoint('http://0.0.0.0:8080/healthz'), { host: '0.0.0.0', port: 8080, path: '/healthz' });
  assert.deepEqual(parseEndpoint('http://[::1]:80/'), { host: '::1', port: 80, path: '/' });
  assert.throws(() => parseEndpoint('https://0.0.0.0:8080/healthz'), /Unsupported scheme/);
  assert.throws(() => parseEndpoint('0.0.0.0:8080'), /Unsupported scheme|must be a URL/);
});

/** The liveness route alone on a server of its own, at a free port, as the operator serves it. */
async function serveLiveness(source: LivenessSource, logger: Logger): Promise<{ url: string; close(): Promise<void> }> {
  const asked = 'http://127.0.0.1:0/healthz';
  const endpoints = await Endpoints.serve([livenessRoute(asked, source, logger)], logger);
  return { url: endpoints.url(asked)!, close: () => endpoints.close() };
}
