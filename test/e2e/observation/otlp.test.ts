/**
 * The tracing set-up that docs/observability.md shows, as a user runs it: an operator (`kopf run`)
 * whose first module registers OpenTelemetry's SDK with an OTLP exporter sends its spans to a
 * collector — here a loopback HTTP server that keeps what it receives — and flushes them when it
 * stops. The docs' block is the fixture's text, so that what the docs show is what was run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createObject, deleteObject } from '../../../runtime/kube/index.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(import.meta.dirname, 'fixtures');

const cluster = useCluster();

interface OtlpValue { stringValue?: string; intValue?: string | number }
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttribute[];
}
interface OtlpAttribute { key: string; value: OtlpValue }
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}

test('docs/observability.md\'s tracing module is the one run here', () => {
  const docs = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
  const block = /^```ts\n(\/\/ src\/tracing\.ts[\s\S]*?)^```$/m.exec(docs)?.[1];
  assert.equal(block, readFileSync(join(FIXTURES, 'tracing.ts'), 'utf8'));
});

test('an operator with the SDK registered sends its spans to an OTLP collector', async (t) => {
  const exports: OtlpExport[] = [];
  const collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(collector, 'listening');
  t.after(() => collector.close());
  t.after(() => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'traced' }).catch(() => {}));

  const operator = runOperator({
    files: [join(FIXTURES, 'traced.ts')],
    args: ['--standalone', '-n', 'default', '--verbose'],
    kubeconfigPath: cluster.cp.kubeconfigPath,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}` },
  });
  try {
    await operator.waitFor('Starting the watch-stream for kopfexamples', { timeout: 60_000 });
    await createObject(cluster.client, KopfExample, { metadata: { name: 'traced', namespace: 'default' }, spec: {} });
    await operator.waitFor('[default/traced] Creation is processed: 1 succeeded; 0 failed.', { timeout: 60_000 });
  } finally {
    const exit = await operator.stop();
    assert.equal(exit.exitCode, 0, exit.output);
  }

  const resources = exports.flatMap((e) => e.resourceSpans);
  assert.ok(resources.length, 'the spans were sent when the operator stopped');
  const names = resources.flatMap((r) => r.resource.attributes.filter((a) => a.key === 'service.name'));
  assert.deepEqual(new Set(names.map((a) => a.value.stringValue)), new Set(['my-operator']));
  const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const handler = spans.find((s) => s.name === 'kopf.handler' && attribute(s, 'kopf.handler.id') === 'greet');
  assert.ok(handler, 'the handler\'s span');
  assert.equal(attribute(handler, 'kopf.object.name'), 'traced');
  const cycle = spans.find((s) => s.spanId === handler.parentSpanId);
  assert.equal(cycle?.name, 'kopf.cycle');
  assert.equal(attribute(cycle!, 'kopf.cause'), 'create');
  const get = spans.find((s) => s.parentSpanId === handler.spanId);
  assert.equal(get?.name, 'kopf.request');
  assert.equal(attribute(get!, 'http.request.method'), 'GET');
  assert.equal(attribute(get!, 'http.response.status_code'), 200);
});
