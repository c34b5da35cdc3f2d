/**
 * Traces of an embedded operator on a real control plane, with OpenTelemetry's SDK registered as
 * an application registers it and its spans kept in memory: a processing cycle's span, its
 * handlers' spans under it, the API requests under those, the attributes of each, a failing
 * handler's error, and the trace context on the Kubernetes events that the handlers post.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { context, trace, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { createObject, listObjects } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { PermanentError } from '../../../runtime/structs/errors.ts';
import { Events } from '../../../runtime/structs/builtins.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { info } from '../../../runtime/posting/helpers.ts';
import { TRACEPARENT_ANNOTATION } from '../../../runtime/posting/events.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from '../engine/support.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contexts = new AsyncLocalStorageContextManager();

before(() => {
  context.setGlobalContextManager(contexts.enable());
  trace.setGlobalTracerProvider(provider);
});
after(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const cluster = useCluster();

function spanId(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan, name?: string): ReadableSpan[] {
  return spans.filter((s) => s.parentSpanContext?.spanId === spanId(parent) && (!name || s.name === name));
}

test('a cycle has its span, its handlers\' spans under it, and their API requests under those', async (t) => {
  t.after(() => exporter.reset());
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function reads({ client, name, namespace, body }) {
    await client.get(KopfExample, name, { namespace: namespace ?? undefined });
    info(body, { reason: 'Read', message: 'The object was read.' });
  });
  registry.on.create(KopfExample, async function refuses() {
    throw new PermanentError('not this one');
  });
  const settings = defaultSettings({ posting: { enabled: true } });
  const created = await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    const created = await createObject(
      cluster.client, KopfExample, { metadata: { name: 'traced', namespace: 'default' }, spec: {} },
    );
    await capture.waitFor('Creation is processed: 1 succeeded; 1 failed.', { timeout: 30 });
    return created;
  });
  const spans = exporter.getFinishedSpans();
  const cycles = spans.filter((s) => s.name === 'kopf.cycle' && s.attributes['kopf.cause'] === 'create');
  assert.ok(cycles.length >= 2, 'one cycle per handler (the asap lifecycle)');
  for (const cycle of cycles) {
    assert.equal(cycle.parentSpanContext, undefined);
    assert.deepEqual(
      { ...cycle.attributes },
      {
        'kopf.resource': 'kopfexamples.v1.kopf.dev', 'kopf.object.kind': 'KopfExample',
        'k8s.namespace.name': 'default', 'kopf.object.name': 'traced', 'kopf.object.uid': created.metadata?.uid,
        'kopf.event.type': cycle.attributes['kopf.event.type'], 'kopf.cause': 'create',
      },
    );
    // The cycle writes its records: a PATCH of the object, under the cycle.
    const writes = childrenOf(spans, cycle, 'kopf.request')
      .filter((s) => s.attributes['http.request.method'] === 'PATCH');
    assert.ok(writes.length >= 1, 'the cycle\'s patch is its child');
    assert.equal(writes[0]!.attributes['url.path'], '/apis/kopf.dev/v1/namespaces/default/kopfexamples/traced');
    assert.equal(writes[0]!.attributes['http.response.status_code'], 200);
  }

  const handlers = spans.filter((s) => s.name === 'kopf.handler');
  const reads = handlers.find((s) => s.attributes['kopf.handler.id'] === 'reads');
  const refuses = handlers.find((s) => s.attributes['kopf.handler.id'] === 'refuses');
  assert.ok(reads && refuses, 'each handler call has its span');
  assert.ok(cycles.some((c) => c.spanContext().spanId === reads.parentSpanContext?.spanId), 'under its cycle');
  assert.deepEqual(
    { ...reads.attributes },
    {
      'kopf.handler.id': 'reads', 'kopf.retry': 0, 'kopf.cause': 'create', 'kopf.object.kind': 'KopfExample',
      'k8s.namespace.name': 'default', 'kopf.object.name': 'traced', 'kopf.object.uid': created.metadata?.uid,
    },
  );
  assert.equal(reads.status.code, SpanStatusCode.UNSET);
  const [get] = childrenOf(spans, reads, 'kopf.request');
  assert.ok(get, 'the handler\'s request is its child');
  assert.equal(get.attributes['http.request.method'], 'GET');
  assert.equal(get.attributes['http.response.status_code'], 200);

  assert.equal(refuses.status.code, SpanStatusCode.ERROR);
  assert.equal(refuses.status.message, 'not this one');
  const exception = refuses.events.find((e) => e.name === 'exception');
  assert.equal(exception?.attributes?.['exception.message'], 'not this one');

  // The handler's event carries its span's trace context, for a trace to be found from the event.
  const { items } = await listObjects(
    cluster.client, Events, { namespace: 'default', fieldSelector: `involvedObject.uid=${created.metadata?.uid}` },
  );
  const read = items.find((e) => e.reason === 'Read');
  assert.equal(
    read?.metadata?.annotations?.[TRACEPARENT_ANNOTATION],
    `00-${reads.spanContext().traceId}-${spanId(reads)}-01`,
  );
});

test('a request that fails is a failed span with its status', async (t) => {
  t.after(() => exporter.reset());
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function misses({ client }) {
    await client.get(KopfExample, 'absent', { namespace: 'default' }).catch(() => undefined);
  });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, KopfExample, { metadata: { name: 'missing', namespace: 'default' }, spec: {} });
    await capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 30 });
  });
  const spans = exporter.getFinishedSpans();
  const handler = spans.find((s) => s.name === 'kopf.handler' && s.attributes['kopf.handler.id'] === 'misses');
  assert.ok(handler);
  const [get] = childrenOf(spans, handler, 'kopf.request');
  assert.equal(get?.attributes['http.response.status_code'], 404);
  assert.equal(get?.status.code, SpanStatusCode.ERROR);
});
