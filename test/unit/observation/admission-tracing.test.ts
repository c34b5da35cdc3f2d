/**
 * Admission handlers are handler calls too: each has its span, with the object under review, and
 * an error status when it refuses.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { admissionResponder } from '../../../runtime/admission/responder.ts';
import { PermanentError } from '../../../runtime/structs/errors.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf } from '../kube/fake-server.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
after(async () => { await provider.shutdown(); trace.disable(); });

test('each admission handler\'s call has its span; a refusal is an error on it', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function passes() { /* allowed */ });
  registry.on.validate(KopfExample, function refuses() { throw new PermanentError('not like this'); });
  const settings = defaultSettings();
  const logger = new Logger(new LogConfig({ sinks: [] }), 'kopf');
  const respond = admissionResponder({
    webhooks: registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample })),
    client: clientOf({ url: 'http://127.0.0.1:9' }), settings, logger, memo: {},
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    cancelled: new AbortController().signal, indices: new OperatorIndexers([]).indices,
  });
  const object = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'kex1', namespace: 'ns1' } };
  const request = {
    uid: 'uid-1', resource: { group: 'kopf.dev', version: 'v1', resource: 'kopfexamples' },
    operation: 'CREATE', userInfo: { username: 'admin' }, object, dryRun: false,
  };
  const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  await respond({ body, webhook: undefined, headers: {}, sslpeer: {} });

  const spans = exporter.getFinishedSpans().filter((s) => s.name === 'kopf.handler');
  assert.deepEqual(spans.map((s) => s.attributes['kopf.handler.id']), ['passes', 'refuses']);
  for (const span of spans) {
    assert.equal(span.attributes['kopf.object.name'], 'kex1');
    assert.equal(span.attributes['k8s.namespace.name'], 'ns1');
  }
  assert.equal(spans[0]!.status.code, SpanStatusCode.UNSET);
  assert.equal(spans[1]!.status.code, SpanStatusCode.ERROR);
  assert.equal(spans[1]!.status.message, 'not like this');
});
