/**
 * Indexing through the real processing of events (as Kopf's `kopf/_core/engines/indexing.py`):
 * index functions run first on every event, their values replace the object's, a deletion or a
 * filter mismatch removes them; errors by their mode; the gate holds the other handlers until the
 * indexes are complete.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type { ChangingHandler, EventHandler, IndexingHandler } from '../../../runtime/registry/handlers.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { IndexReadiness } from '../../../runtime/indices/index-readiness.ts';
import { ResourceIndexing } from '../../../runtime/indexing/indexing.ts';
import type { Index } from '../../../runtime/indices/indices.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import type { ResourceProcessor } from '../../../runtime/processing/processor.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { processorOf } from '../processing/processor.ts';

const POD: KubeObject = {
  apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
  metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1', labels: { app: 'web' } },
  spec: { field: 'v' },
};

function withLabels(labels: Record<string, string>, version: string, spec: object = {}): KubeObject {
  const body = copyJson(POD) as KubeObject;
  body.metadata!.labels = labels;
  body.metadata!.resourceVersion = version;
  Object.assign(body.spec as object, spec);
  return body;
}

/** A processor of KopfExamples with the registry's handlers, its own indexes and gate, on a fake API. */
async function indexingOf(register: (registry: OperatorRegistry) => void, options: { held?: boolean } = {}) {
  const registry = new OperatorRegistry();
  register(registry);
  const server = await startServer((req, res) => {
    patches.push(JSON.parse(req.body));
    sendJson(res, 200, { ...POD, metadata: { ...POD.metadata, resourceVersion: '99' } });
  });
  const patches: unknown[] = [];
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
  const stop = new AbortController();
  const requeued: Array<{ key: string; event: RawEvent }> = [];
  const client = clientOf(server);
  const enqueue = (key: string, event: RawEvent) => { requeued.push({ key, event }); };
  const handlers = registry.resourceHandlers;
  const indexers = new OperatorIndexers(handlers.filter((h) => h.kind === 'index').map((h) => h.id));
  const readiness = new IndexReadiness();
  if (options.held) readiness.hold('stream');
  const indexing = handlers.filter((h): h is IndexingHandler => h.kind === 'index');
  const proc: ResourceProcessor = {
    ...processorOf(registry, { client, settings, logger, stopping: stop.signal, enqueue }),
    changing: handlers.filter((h): h is ChangingHandler => h.kind === 'changing'),
    watching: handlers.filter((h): h is EventHandler => h.kind === 'event'),
    indexing: new ResourceIndexing(indexing, indexers, readiness),
    indices: indexers.indices,
  };
  const process = (event: RawEvent) => processEvent(proc, 'u1', event, new AbortController().signal);
  const close = async () => { stop.abort(); proc.memories.clear(); client.close(); await server.close(); };
  const messages = () => capture.messages();
  return { proc, process, indices: indexers.indices, readiness, requeued, patches, messages, close };
}

function dump(index: Index<unknown, unknown>): Array<[unknown, unknown[]]> {
  return [...index].map(([key, store]) => [key, [...store]]);
}

test('values follow the object: set, replaced on each event, removed on a mismatch and on deletion', async (t) => {
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function by_app({ labels, spec }) {
      return { [labels.app ?? '']: spec.field };
    }, { labels: { tier: 'front' } });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: null, object: withLabels({ app: 'web', tier: 'front' }, '1') });
  assert.deepEqual(dump(env.indices.get('by_app')), [['web', ['v']]]);
  const labelled = withLabels({ app: 'api', tier: 'front' }, '2', { field: 'w' });
  await env.process({ kind: 'event', type: 'MODIFIED', object: labelled });
  assert.deepEqual(dump(env.indices.get('by_app')), [['api', ['w']]], 'the old key is gone with the old value');
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({ app: 'api' }, '3') });
  assert.deepEqual(dump(env.indices.get('by_app')), [], 'no longer matching the labels filter');
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({ app: 'db', tier: 'front' }, '4') });
  assert.deepEqual(dump(env.indices.get('by_app')), [['db', ['v']]], 'matching again');
  await env.process({ kind: 'event', type: 'DELETED', object: withLabels({ app: 'db', tier: 'front' }, '5') });
  assert.deepEqual(dump(env.indices.get('by_app')), []);
  assert.deepEqual(env.patches, [], 'index functions write nothing to the object');
});

test('an index function gets the object\'s context; its patch is not applied; null keeps the values', async (t) => {
  const seen: unknown[] = [];
  let give: unknown = 'first';
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function indexer({ name, namespace, retry, param, indices, patch }) {
      seen.push({ name, namespace, retry, param, indexes: [...indices.keys()] });
      patch.status.touched = true;
      return give;
    }, { param: 'p' });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: 'ADDED', object: POD });
  give = null;
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '2') });
  assert.deepEqual(dump(env.indices.get('indexer')), [[null, ['first']]]);
  assert.deepEqual(seen, [
    { name: 'x', namespace: 'default', retry: 0, param: 'p', indexes: ['indexer'] },
    { name: 'x', namespace: 'default', retry: 0, param: 'p', indexes: ['indexer'] },
  ]);
  assert.deepEqual(env.patches, []);
  assert.ok(env.messages().includes("Indexer 'indexer' succeeded."), 'logged tersely, at debug level');
});

test('errors are ignored by default: the old values stay, and the function is called on the next event', async (t) => {
  let fail = false;
  let calls = 0;
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function flaky() { calls++; if (fail) throw new Error('boom'); return calls; });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: 'ADDED', object: POD });
  fail = true;
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '2') });
  assert.deepEqual(dump(env.indices.get('flaky')), [[null, [1]]]);
  fail = false;
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '3') });
  assert.deepEqual(dump(env.indices.get('flaky')), [[null, [3]]]);
  assert.ok(env.messages().includes("Indexer 'flaky' failed with an exception and will ignore it: boom"));
});

test('a permanent error removes the object\'s values and excludes it from that index for good', async (t) => {
  let calls = 0;
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function strict() {
      if (++calls === 2) throw new PermanentError('no');
      return calls;
    });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: 'ADDED', object: POD });
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '2') });
  assert.deepEqual(dump(env.indices.get('strict')), []);
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '3') });
  assert.equal(calls, 2, 'not called again for this object');
  assert.deepEqual(dump(env.indices.get('strict')), []);
});

test('a temporary error removes the values until the retry is due; retries are limited', async (t) => {
  let calls = 0;
  let attempts = 0;
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function later() {
      if (++calls === 2) throw new TemporaryError('wait', { delay: 3600 });
      return calls;
    });
    r.on.index(KopfExample, function again() {
      attempts++;
      throw new TemporaryError('now', { delay: 0 });
    }, { retries: 1 });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '1') });
  assert.deepEqual(dump(env.indices.get('later')), [[null, [1]]]);
  for (const version of ['2', '3', '4']) {
    await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, version) });
  }
  assert.deepEqual(dump(env.indices.get('later')), [], 'removed while the retry is due');
  assert.equal(calls, 2, 'the retry is an hour away');
  assert.ok(env.messages().includes("Indexer 'later' failed temporarily: wait"), env.messages().join('\n'));
  assert.equal(attempts, 1, 'a second attempt would exceed the retries');
  assert.ok(env.messages().includes("Indexer 'again' failed temporarily but will exceed 1 retries: now"));
});

test('other handlers see the index as it is after the event\'s own indexing', async (t) => {
  const seen: unknown[] = [];
  const env = await indexingOf((r) => {
    const byApp = r.on.index(KopfExample, function by_app({ labels }) { return { [labels.app ?? '-']: true }; });
    r.on.event(KopfExample, function spy({ indices }) { seen.push([...indices.get(byApp).keys()]); });
  });
  t.after(env.close);
  await env.process({ kind: 'event', type: 'ADDED', object: withLabels({ app: 'web' }, '1') });
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({ app: 'api' }, '2') });
  assert.deepEqual(seen, [['web'], ['api']]);
});

test('with the gate closed, the object is indexed, its handlers wait; its event comes back once', async (t) => {
  let indexed = 0;
  const handled: string[] = [];
  const env = await indexingOf((r) => {
    r.on.index(KopfExample, function counter() { return ++indexed; });
    r.on.event(KopfExample, function spy({ body }) { handled.push(body.metadata?.resourceVersion ?? ''); });
  }, { held: true });
  t.after(env.close);
  await env.process({ kind: 'event', type: null, object: withLabels({}, '1') });
  await env.process({ kind: 'event', type: 'MODIFIED', object: withLabels({}, '2') });
  assert.deepEqual(handled, []);
  assert.equal(indexed, 2);
  assert.equal(env.requeued.length, 0, 'nothing comes back before the gate opens');
  env.readiness.release('stream');
  const back = env.requeued.map(({ event }) => [event.object.metadata?.resourceVersion, event.kind]);
  assert.deepEqual(back, [['2', 'indexed']], 'only the latest event');
  await env.process(env.requeued[0]!.event);
  assert.deepEqual(handled, ['2']);
  assert.equal(indexed, 2, 'not indexed twice');
});
