/**
 * The admission responder without a server: reviews in, AdmissionReview responses (or HTTP errors)
 * out. Error choice, warnings, the merged patch, the handlers chosen, and bad input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { WebhookReply } from '../../../runtime/config/admission.ts';
import { DEBUG, LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { AdmissionError } from '../../../runtime/admission/admission-errors.ts';
import { admissionResponder, answerWithin } from '../../../runtime/admission/responder.ts';
import type { ReviewResponse } from '../../../runtime/admission/responses.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf } from '../kube/fake-server.ts';

const OBJECT = {
  apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
  metadata: { name: 'kex1', namespace: 'ns1', labels: { a: 'b' } }, spec: { field: 'value' },
};

function reviewOf(request: Record<string, unknown> = {}, apiVersion = 'admission.k8s.io/v1') {
  return {
    apiVersion, kind: 'AdmissionReview',
    request: {
      uid: 'uid-1', resource: { group: 'kopf.dev', version: 'v1', resource: 'kopfexamples' },
      operation: 'CREATE', userInfo: { username: 'admin' }, object: OBJECT, dryRun: false, ...request,
    },
  };
}

function responder(registry: OperatorRegistry, memo: Record<string, unknown> = {}) {
  const settings = defaultSettings();
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf');
  const poster = new EventPoster({ post: async () => undefined, settings, logger });
  const webhooks = registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample }));
  const indices = new OperatorIndexers([]).indices;
  const cancelled = new AbortController().signal;
  const client = clientOf({ url: 'http://127.0.0.1:9' }); // handed to the handlers; these never call it
  const respond = admissionResponder({ webhooks, client, settings, poster, logger, memo, cancelled, indices });
  const send = (body: unknown, webhook?: string, headers: Record<string, string> = {}): Promise<WebhookReply> =>
    respond({ body: typeof body === 'string' ? body : JSON.stringify(body), webhook, headers, sslpeer: {} });
  const review = async (body: unknown, webhook?: string): Promise<ReviewResponse['response']> => {
    const reply = await send(body, webhook);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return (reply.body as ReviewResponse).response;
  };
  return { send, review, capture };
}

function decodedPatch(response: ReviewResponse['response']): unknown {
  assert.equal(response.patchType, 'JSONPatch');
  return JSON.parse(Buffer.from(response.patch!, 'base64').toString());
}

test('a review passed by all validators is allowed, with the request\'s uid and version echoed', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check() { /* passes */ });
  const { send } = responder(registry);
  const reply = await send(reviewOf({}, 'admission.k8s.io/v1beta1'));
  const response = { uid: 'uid-1', allowed: true };
  const body = { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response };
  assert.deepEqual(reply, { status: 200, body });
});

test('an AdmissionError refuses with its message and code; among several errors it is the one reported', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function arbitrary() { throw new Error('arbitrary'); });
  registry.on.validate(KopfExample, function temporary() { throw new TemporaryError('temporary'); });
  registry.on.validate(KopfExample, function permanent() { throw new PermanentError('permanent'); });
  registry.on.validate(KopfExample, function admission() { throw new AdmissionError('Go away!', 555); });
  registry.on.validate(KopfExample, function second() { throw new AdmissionError('second'); });
  const { review } = responder(registry);
  const response = await review(reviewOf());
  assert.equal(response.allowed, false);
  assert.deepEqual(response.status, { message: 'Go away!', code: 555 });
});

test('without an AdmissionError: permanent before temporary before arbitrary, and the code is 500', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function arbitrary() { throw new TypeError('arbitrary'); });
  registry.on.validate(KopfExample, function temporary() { throw new TemporaryError('temporary'); });
  const { review } = responder(registry);
  assert.deepEqual((await review(reviewOf())).status, { message: 'temporary', code: 500 });
  const only = new OperatorRegistry();
  only.on.validate(KopfExample, function arbitrary() { throw new TypeError('not a number'); });
  only.on.validate(KopfExample, function empty() { throw new PermanentError(); });
  assert.deepEqual((await responder(only).review(reviewOf())).status, { message: 'PermanentError', code: 500 });
});

test('a handler throwing a non-error value refuses with that value shown', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function weird() { throw { reason: 42 }; }); // JavaScript lets code throw anything
  const { review } = responder(registry);
  assert.deepEqual((await review(reviewOf())).status, { message: '{ reason: 42 }', code: 500 });
});

test('warnings from all handlers are returned in order, also when the request is refused', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function first({ warnings }) { warnings.push('one'); });
  registry.on.mutate(KopfExample, function second({ warnings }) {
    warnings.push('two');
    throw new AdmissionError('no');
  });
  const response = await responder(registry).review(reviewOf());
  assert.deepEqual(response.warnings, ['one', 'two']);
  assert.equal(response.allowed, false);
});

test('mutations of several handlers merge into one JSON patch; a later write to a field wins', async () => {
  const registry = new OperatorRegistry();
  registry.on.mutate(KopfExample, function first({ patch }) {
    patch.spec.injected = 1;
    patch.spec.field = 'first';
    patch.metadata.labels.x = 'y';
  });
  registry.on.mutate(KopfExample, function second({ patch }) {
    patch.spec.field = 'second';
    patch.metadata.labels.a = null;
  });
  const response = await responder(registry).review(reviewOf());
  assert.equal(response.allowed, true);
  assert.deepEqual(decodedPatch(response), [
    { op: 'remove', path: '/metadata/labels/a' },
    { op: 'add', path: '/metadata/labels/x', value: 'y' },
    { op: 'replace', path: '/spec/field', value: 'second' },
    { op: 'add', path: '/spec/injected', value: 1 },
  ]);
});

test('the handler named by the URL path runs alone; an unknown name is a 404', async () => {
  const ran: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function one() { ran.push('one'); });
  registry.on.validate(KopfExample, function two() { ran.push('two'); });
  const { review, send, capture } = responder(registry);
  await review(reviewOf(), 'two');
  assert.deepEqual(ran, ['two']);
  const reply = await send(reviewOf(), 'three');
  assert.equal(reply.status, 404);
  assert.match((reply.body as { message: string }).message, /no admission handler with the id 'three'/);
  const refusal = capture.records.find((r) => r.message.startsWith('A webhook request is refused (404)'));
  assert.equal(refusal?.level, DEBUG, 'the caller\'s mistake is logged at debug level');
});

test('handlers are chosen by operation, subresource, filters; mutators skip DELETE unless only for it', async () => {
  const ran: string[] = [];
  const registry = new OperatorRegistry();
  const mark = (name: string) => ({ [name]: () => { ran.push(name); } })[name];
  registry.on.validate(KopfExample, mark('updates'), { operations: ['UPDATE'] });
  registry.on.validate(KopfExample, mark('any'));
  registry.on.validate(KopfExample, mark('status'), { subresource: 'status' });
  registry.on.validate(KopfExample, mark('all_subresources'), { subresource: '*' });
  registry.on.validate(KopfExample, mark('labelled'), { labels: { a: 'b' } });
  registry.on.validate(KopfExample, mark('unlabelled'), { labels: { a: 'c' } });
  registry.on.validate(KopfExample, mark('field_value'), { field: 'spec.field', value: 'value' });
  registry.on.validate(KopfExample, mark('field_absent'), { field: 'spec.nothing' });
  const dryrun = (ctx: object) => (ctx as { dryrun?: boolean }).dryrun === true;
  registry.on.validate(KopfExample, mark('when_dryrun'), { when: dryrun });
  registry.on.mutate(KopfExample, mark('mutator'));
  registry.on.mutate(KopfExample, mark('deletions'), { operation: 'DELETE' });
  const { review } = responder(registry);
  await review(reviewOf());
  assert.deepEqual(ran, ['any', 'all_subresources', 'labelled', 'field_value', 'mutator']);
  ran.length = 0;
  await review(reviewOf({ operation: 'DELETE', object: null, oldObject: OBJECT, dryRun: true }));
  assert.deepEqual(ran, ['any', 'all_subresources', 'labelled', 'field_value', 'when_dryrun', 'deletions']);
  ran.length = 0;
  await review(reviewOf({ operation: 'UPDATE', oldObject: OBJECT, subResource: 'status' }));
  assert.deepEqual(ran, ['status', 'all_subresources']);
});

test('handlers get the request\'s details; validators get no patch; the memo is the operator\'s, copied', async () => {
  const seen: Record<string, unknown>[] = [];
  const registry = new OperatorRegistry();
  const memo = { shared: 1 };
  registry.on.validate(KopfExample, function look(ctx) {
    const { operation, dryrun, userinfo, headers, subresource, old, name, namespace, spec } = ctx;
    const patch = 'patch' in ctx;
    seen.push({ operation, dryrun, userinfo, headers, subresource, old: old?.spec, name, namespace, spec, patch });
    ctx.memo.written = true;
  });
  registry.on.mutate(KopfExample, function change(ctx) {
    seen.push({ patch: 'patch' in ctx, memo: { ...ctx.memo } });
  });
  const { send } = responder(registry, memo);
  const old = { ...OBJECT, spec: { field: 'old' } };
  const headers = { 'user-agent': 'kube-apiserver' };
  await send(reviewOf({ operation: 'UPDATE', oldObject: old, dryRun: true }), undefined, headers);
  assert.deepEqual(seen, [
    { operation: 'UPDATE', dryrun: true, userinfo: { username: 'admin' }, headers, subresource: null,
      old: { field: 'old' }, name: 'kex1', namespace: 'ns1', spec: { field: 'value' }, patch: false },
    { patch: true, memo: { shared: 1, written: true } },
  ]);
  assert.deepEqual(memo, { shared: 1 });
});

test('bad input is answered with 400 and what is wrong, never thrown', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check() { /* passes */ });
  const { send } = responder(registry);
  const cases: [unknown, RegExp][] = [
    ['{not json', /not JSON/],
    ['[]', /not a JSON object/],
    [{ ...reviewOf(), kind: 'Pod' }, /its kind is "Pod"/],
    [reviewOf({}, 'admission.k8s.io/v2'), /Unsupported AdmissionReview version "admission.k8s.io\/v2"/],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /has no request/],
    [reviewOf({ uid: undefined }), /no request.uid/],
    [reviewOf({ resource: undefined }), /no request.resource/],
    [reviewOf({ operation: 'PATCH' }), /Unknown operation "PATCH"/],
    [reviewOf({ userInfo: undefined }), /User info is missing/],
    [reviewOf({ object: undefined }), /Either old or new object is missing/],
  ];
  for (const [body, message] of cases) {
    const reply = await send(body);
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.match((reply.body as { message: string }).message, message);
    assert.equal((reply.body as { kind: string }).kind, 'Status');
  }
  const unknown = await send(reviewOf({ resource: { group: 'apps', version: 'v1', resource: 'deployments' } }));
  assert.equal(unknown.status, 404);
  assert.match((unknown.body as { message: string }).message, /deployments.v1.apps has no admission handlers/);
});

test('a handler past its time refuses the request saying so; its signal is aborted', { timeout: 60_000 }, async () => {
  const registry = new OperatorRegistry();
  let aborted: unknown;
  registry.on.validate(KopfExample, async function slow({ signal }) {
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => {
      aborted = signal.reason;
      resolve();
    }));
    await new Promise<void>(() => undefined); // never ends: the answer must not wait for it
  }, { timeout: 1 });
  const { review, capture } = responder(registry);
  const response = await review(reviewOf());
  assert.equal(response.allowed, false);
  const message = `Webhook 'slow' did not finish within ${answerWithin(1)} s, before the API server's timeout of 1 s.`;
  assert.equal(response.status?.message, message);
  assert.ok(aborted instanceof Error);
  assert.ok(capture.records.some((r) => r.message.includes('did not finish within')));
});

test('registration checks the options', () => {
  const registry = new OperatorRegistry();
  const fn = function h() { /* nothing */ };
  assert.throws(() => registry.on.validate(KopfExample, fn, { operations: [] }), /`operations` is empty/);
  const both = { operation: 'CREATE', operations: ['CREATE'] } as const;
  assert.throws(() => registry.on.validate(KopfExample, fn, both), /either `operation` or `operations`/);
  assert.throws(() => registry.on.validate(KopfExample, fn, { timeout: 31 }), /from 1 to 30 seconds/);
  registry.on.validate(KopfExample, fn);
  assert.throws(() => registry.on.mutate(KopfExample, fn), /share the id 'h'/);
});

test('admission handlers are typed by the descriptor (checked by the type checker)', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function typed(ctx) {
    const field: string | undefined = ctx.spec.field;
    const old: string | undefined = ctx.old?.spec?.field;
    // @ts-expect-error validating handlers get no patch: their changes would be lost
    void ctx.patch;
    // @ts-expect-error the object is read-only
    ctx.spec.field = 'x';
    void [field, old];
  }, { field: 'spec.field', value: 'value' });
  registry.on.mutate(KopfExample, function typed_patch({ patch }) {
    patch.spec.field = 'ok';
    // @ts-expect-error the patch is typed by the resource's spec
    patch.spec.items = 'not a list';
  });
  // @ts-expect-error operations are Kubernetes' (and checked when registered, for untyped callers)
  const wrong = () => registry.on.mutate(KopfExample, function wrong_op() { /* nothing */ }, { operations: ['PATCH'] });
  assert.throws(wrong, /unknown operations PATCH/);
  const response = await responder(registry).review(reviewOf({ operation: 'UPDATE', oldObject: OBJECT }));
  assert.deepEqual(decodedPatch(response), [
    { op: 'replace', path: '/spec/field', value: 'ok' }, { op: 'add', path: '/spec/items', value: 'not a list' },
  ]);
});
