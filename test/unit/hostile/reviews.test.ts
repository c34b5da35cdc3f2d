/**
 * Reviews nested past the bound, wherever the nesting is (the object, the old object, arrays):
 * a 400 that says so, before the diff, the patch or a clone walks them into a stack overflow.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { admissionResponder } from '../../../runtime/admission/responder.ts';
import { MAX_REVIEW_DEPTH } from '../../../runtime/admission/reviews.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf } from '../kube/fake-server.ts';

function responder() {
  const registry = new OperatorRegistry();
  let calls = 0;
  registry.on.mutate(KopfExample, function mark({ patch }) { calls++; patch.metadata.labels.marked = 'yes'; });
  const settings = defaultSettings();
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf');
  const respond = admissionResponder({
    webhooks: registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample })),
    client: clientOf({ url: 'http://127.0.0.1:9' }), settings, logger, memo: {},
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    cancelled: new AbortController().signal, indices: new OperatorIndexers([]).indices,
  });
  return {
    respond: (body: string) => respond({ body, webhook: undefined, headers: {}, sslpeer: {} }),
    calls: () => calls,
    capture,
  };
}

/** An UPDATE review's JSON with these objects' specs (as JSON text: JSON.stringify cannot write them). */
function update(newSpec: string, oldSpec = '{}'): string {
  const object = (
    spec: string
  ) => `{"apiVersion":"kopf.dev/v1","kind":"KopfExample","metadata":{"name":"k"},"spec":${spec}}`;
  return '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",'
    + '"resource":{"group":"kopf.dev","version":"v1","resource":"kopfexamples"},"operation":"UPDATE",'
    + `"userInfo":{"username":"u"},"object":${object(newSpec)},"oldObject":${object(oldSpec)}}}`;
}

const objects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('a 10,000-deep review is a 400 that says why, in the object, the old object or arrays; no handler ' +
  'runs', async () => {
  const { respond, calls, capture } = responder();
  for (const body of [update(objects(10_000)), update('{}', objects(10_000)), update(`{"list":${arrays(10_000)}}`)]) {
    const reply = await respond(body);
    assert.equal(reply.status, 400);
    const message = `The request's JSON is nested deeper than ${MAX_REVIEW_DEPTH} levels.`;
    assert.equal((reply.body as { message: string }).message, message);
  }
  assert.equal(calls(), 0);
  assert.ok(capture.messages().every((m) => !m.includes('Maximum call stack')));
});

test('the depth is read from the text, before a tree is built: an endless opening is refused for its depth; ' +
  'brackets and escaped quotes in strings do not count', async () => {
  const { respond } = responder();
  const endless = await respond('['.repeat(MAX_REVIEW_DEPTH + 1));
  assert.equal(endless.status, 400);
  assert.match((endless.body as { message: string }).message, /nested deeper than/);
  const text = `${'{['.repeat(MAX_REVIEW_DEPTH)}\\\"${'['.repeat(MAX_REVIEW_DEPTH)}`;
  const reply = await respond(update(`{"text":${JSON.stringify(text)}}`));
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
});

test('a review at the bound is reviewed: diffed, its handler run, its patch made', async () => {
  const { respond, calls } = responder();
  // review, request, object, spec: the spec's own levels are the rest.
  const reply = await respond(update(objects(MAX_REVIEW_DEPTH - 3), objects(MAX_REVIEW_DEPTH - 4)));
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(calls(), 1);
  const response = (reply.body as { response: { allowed: boolean; patch?: string } }).response;
  assert.equal(response.allowed, true);
  assert.ok(response.patch, 'the handler\'s patch is answered');
  assert.equal((await respond(update(objects(MAX_REVIEW_DEPTH - 2)))).status, 400, 'one level more is refused');
});
