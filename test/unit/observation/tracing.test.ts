/**
 * Tracing without an SDK costs the API's no-op and nothing more: no attributes, no context
 * entered; with one, `within` makes its span the parent of the spans started inside it, and the
 * trace context reaches the events posted from inside it (and only those).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { context, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  activeTraceparent, describeObject, detached, startCycleSpan, startHandlerSpan, within,
} from '../../../runtime/observation/tracing.ts';
import { buildEventBody, TRACEPARENT_ANNOTATION } from '../../../runtime/posting/events.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
after(() => { trace.disable(); context.disable(); });

test('without a tracer provider, spans do not record and enter no context', async () => {
  const span = startCycleSpan();
  assert.equal(span.isRecording(), false);
  describeObject(span, { name: 'n' }, { group: '', version: 'v1', plural: 'pods' });
  const inside = await within(span, async () => context.active());
  assert.equal(inside, ROOT_CONTEXT);
  assert.equal(await within(span, async () => activeTraceparent()), undefined);
});

test('with a tracer provider, spans nest through `within`, and the trace context is there to post', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  try {
    const outer = startCycleSpan();
    describeObject(outer, { name: 'n', namespace: 'ns' }, { group: '', version: 'v1', plural: 'pods' });
    const traceparent = await within(outer, async () => {
      await within(startHandlerSpan('h', 0), async () => undefined);
      return { inside: activeTraceparent(), detached: detached(() => activeTraceparent()) };
    });
    const [inner, cycle] = exporter.getFinishedSpans();
    assert.equal(inner?.parentSpanContext?.spanId, cycle?.spanContext().spanId);
    assert.deepEqual(
      { ...cycle?.attributes }, { 'kopf.resource': 'pods.v1', 'k8s.namespace.name': 'ns', 'kopf.object.name': 'n' },
    );
    assert.equal(traceparent.inside, `00-${outer.spanContext().traceId}-${outer.spanContext().spanId}-01`);
    assert.equal(traceparent.detached, undefined);
    await assert.rejects(within(startHandlerSpan('failing', 1), async () => { throw new Error('boom'); }), /boom/);
    assert.equal(exporter.getFinishedSpans()[2]?.status.message, 'boom');
  } finally {
    await provider.shutdown();
    trace.disable();
  }
});

test('an event carries the trace context as an annotation only when it has one', () => {
  const { posting } = defaultSettings();
  const event = { ref: { kind: 'Pod', name: 'n' }, type: 'Normal', reason: 'R', message: 'm', time: 0 };
  assert.equal(buildEventBody(event, posting, 'default').metadata.annotations, undefined);
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  assert.deepEqual(
    buildEventBody({ ...event, traceparent }, posting, 'default').metadata.annotations,
    { [TRACEPARENT_ANNOTATION]: traceparent },
  );
});
