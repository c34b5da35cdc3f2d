/**
 * Malformed ConversionReviews sent to the webhook server at a converted CRD's path, over HTTPS as
 * the API server sends them: each is a 4xx that says what is wrong, no converter runs, and the
 * server answers a good review after them all.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { statusReply } from '../../../runtime/config/admission.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';
import { routedResponder } from '../../../runtime/webhooks/admission-serving.ts';
import { GROUP, V1, V1alpha1, alphaConverters } from '../../e2e/conversion/widgets.ts';
import { closed, open, targetOf, type Target } from './http.ts';

const PATH = '/convert/widgets.e2e.kopf.dev';
let calls = 0;
const stop = new AbortController();
let target: Target;
let ended: Promise<unknown>;

before(async () => {
  const registry = new OperatorRegistry();
  registry.on.convert(V1, V1alpha1, {
    up: (object) => { calls++; return alphaConverters.up(object); },
    down: (object) => { calls++; return alphaConverters.down(object); },
  });
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [captureLogs().sink] }), 'kopf');
  const admission = async () => statusReply(404, 'No admission here.');
  const respond = routedResponder(admission, registry.conversionHandlers, logger);
  const server = new WebhookServer({ addr: '127.0.0.1', path: '/convert' });
  const iterator = server.serve(respond, { signal: stop.signal, logger })[Symbol.asyncIterator]();
  const { url, caBundle } = (await iterator.next()).value as { url: string; caBundle: string };
  ended = iterator.next(); // serves until stopped
  target = targetOf(url.replace('localhost', '127.0.0.1'), Buffer.from(caBundle, 'base64').toString());
});
after(async () => {
  stop.abort();
  await ended;
});

async function post(body: string): Promise<{ status: number | null; body: string }> {
  const socket = open(target);
  const outcome = closed(socket);
  const head = `POST ${PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.write(head + body);
  const { status, text } = await outcome;
  return { status, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

const review = (request: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request, ...extra });
const object = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 3 } };
const good = { uid: 'u-1', desiredAPIVersion: `${GROUP}/v1alpha1`, objects: [object] };

const MALFORMED: [string, string, RegExp][] = [
  ['empty', '', /not JSON/],
  ['not JSON', '{"kind": "ConversionReview",', /not JSON/],
  ['an array', '[]', /not a JSON object/],
  ['an admission review', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /kind is/],
  ['another version', review(good).replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'), /Unsupported/],
  ['no request', review(undefined), /has no request\./],
  ['no uid', review({ ...good, uid: 7 }), /has no request\.uid/],
  ['no desired version', review({ ...good, desiredAPIVersion: null }), /request\.desiredAPIVersion/],
  ['a desired version without a group', review({ ...good, desiredAPIVersion: 'v1' }), /has no group/],
  ['objects not a list', review({ ...good, objects: { 0: object } }), /no request\.objects list/],
  ['an object not an object', review({ ...good, objects: [object, 'w'] }), /objects\[1\] is not an object/],
  ['an object without apiVersion', review({ ...good, objects: [{ kind: 'Widget' }] }), /objects\[0\]\.apiVersion/],
  ['metadata not an object', review({ ...good, objects: [{ ...object, metadata: [] }] }), /metadata is not an object/],
  ['nested 10,000 deep', review({ ...good, objects: [{ ...object, spec: 0 }] })
    .replace('"spec":0', `"spec":${'['.repeat(10_000)}${']'.repeat(10_000)}`), /nested deeper than/],
];

for (const [what, body, message] of MALFORMED) {
  test(`a malformed ConversionReview (${what}) is a 400 that says why; no converter runs`, async () => {
    const reply = await post(body);
    assert.equal(reply.status, 400, reply.body);
    assert.match(JSON.parse(reply.body).message, message);
    assert.equal(calls, 0);
  });
}

test('a prototype key in an object is data; an unknown kind is a failed review, not an error', async () => {
  const reply = await post(review(good).replace('"objects":[{', '"objects":[{"__proto__":{"polluted":1},'));
  assert.equal(reply.status, 200, reply.body);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const gizmo = await post(review({ ...good, objects: [{ ...object, kind: 'Gizmo' }] }));
  assert.equal(gizmo.status, 200);
  assert.deepEqual(JSON.parse(gizmo.body).response.result,
    { status: 'Failure', message: 'There are no converters of Gizmo.e2e.kopf.dev.' });
});

test('after them all, a good review is converted: every object of it, in one answer', async () => {
  const objects = [object, { ...object, spec: { replicas: 1 } }, { ...object, spec: {} }];
  const reply = await post(review({ ...good, objects }));
  assert.equal(reply.status, 200, reply.body);
  const { response } = JSON.parse(reply.body);
  assert.equal(response.uid, 'u-1');
  assert.deepEqual(response.result, { status: 'Success' });
  const specs = response.convertedObjects.map((o: { spec: unknown }) => o.spec);
  assert.deepEqual(specs, [{ size: 'large' }, { size: 'small' }, {}]);
});
