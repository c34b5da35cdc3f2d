import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { SettingsOverrides } from '../../../runtime/config/settings.ts';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import {
  currentOperatorContext,
  runWithOperatorContext,
  type OperatorContext,
} from '../../../runtime/posting/operator-context.ts';
import type { EventBody } from '../../../runtime/posting/events.ts';
import { event, exception, info, warn } from '../../../runtime/posting/helpers.ts';
import { EventPoster } from '../../../runtime/posting/poster.ts';

const kex = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'kex1', namespace: 'ns1', uid: 'u-1' },
};
const kex2 = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'kex2', namespace: 'ns1', uid: 'u-2' },
};

function operator(overrides: SettingsOverrides = {}) {
  const posted: EventBody[] = [];
  const settings = defaultSettings(overrides);
  const poster = new EventPoster({
    post: async (body) => { posted.push(body); },
    settings,
    logger: new Logger(new LogConfig({ sinks: [] }), 'kopf.posting'),
  });
  const context: OperatorContext = { settings, poster };
  const run = async (fn: () => void | Promise<void>) => {
    await runWithOperatorContext(context, fn);
    await poster.idle();
    return posted.map((b) => [b.type, b.reason, b.message, b.involvedObject.name]);
  };
  return { run, posted, context };
}

test('the helpers post Kopf\'s types for each object given', async () => {
  const { run } = operator();
  assert.deepEqual(await run(() => {
    event(kex, { type: 'SomeType', reason: 'SomeReason', message: 'Some message' });
    info([kex, kex2], { reason: 'Info', message: 'Both' });
    warn(kex, { reason: 'Careful' });
    exception(kex, { reason: 'Boom', message: 'It failed:', error: new Error('disk full') });
  }), [
    ['SomeType', 'SomeReason', 'Some message', 'kex1'],
    ['Normal', 'Info', 'Both', 'kex1'],
    ['Normal', 'Info', 'Both', 'kex2'],
    ['Warning', 'Careful', '', 'kex1'],
    ['Error', 'Boom', 'It failed: disk full', 'kex1'],
  ]);
});

test('exception: the reason defaults to the error\'s class, the message to its text', async () => {
  class QuotaExceeded extends Error {}
  const { run } = operator();
  assert.deepEqual(await run(() => {
    exception(kex, { error: new TypeError('x is undefined') });
    exception(kex, { error: new QuotaExceeded('too many') });
    exception(kex, { message: 'Only words.' });
  }), [
    ['Error', 'TypeError', 'x is undefined', 'kex1'],
    ['Error', 'QuotaExceeded', 'too many', 'kex1'],
    ['Error', 'Error', 'Only words.', 'kex1'],
  ]);
});

test('nested lists and other iterables of objects are walked', async () => {
  const { run } = operator();
  assert.deepEqual((await run(() => info(new Set([kex, [kex2]]), { reason: 'R' }))).map((e) => e[3]), ['kex1', 'kex2']);
});

test('posting.enabled=false silences every helper (warn too: a deliberate difference from Kopf)', async () => {
  const { run } = operator({ posting: { enabled: false } });
  assert.deepEqual(await run(() => {
    event(kex, { type: 'T', reason: 'R' });
    info(kex, { reason: 'R' });
    warn(kex, { reason: 'R' });
    exception(kex, { error: new Error('e') });
  }), []);
});

test('posting.level filters info, warn and exception, but not event', async () => {
  const { run } = operator({ posting: { level: 30 } });
  assert.deepEqual((await run(() => {
    event(kex, { type: 'Normal', reason: 'Event' });
    info(kex, { reason: 'Info' });
    warn(kex, { reason: 'Warn' });
    exception(kex, { reason: 'Exception' });
  })).map((e) => e[1]), ['Event', 'Warn', 'Exception']);
  const { run: runErrorsOnly } = operator({ posting: { level: 40 } });
  assert.deepEqual((await runErrorsOnly(() => {
    warn(kex, { reason: 'Warn' });
    exception(kex, { reason: 'Exception' });
  })).map((e) => e[1]), ['Exception']);
});

test('outside an operator the helpers say where they may be called from', () => {
  assert.equal(currentOperatorContext(), undefined);
  assert.throws(() => info(kex, { reason: 'R' }), {
    message: "info() needs an operator's context: call it from a handler, or inside runWithOperatorContext().",
  });
});

test('two operators in one process, interleaved across awaits, post into their own queues', async () => {
  const a = operator({ posting: { reportingComponent: 'op-a' } });
  const b = operator({ posting: { reportingComponent: 'op-b' } });
  const tick = () => new Promise((r) => setTimeout(r, 1));
  await Promise.all([
    a.run(
      async () => { await tick(); info(kex, { reason: 'FromA1' }); await tick(); info(kex, { reason: 'FromA2' }); }
    ),
    b.run(
      async () => { info(kex, { reason: 'FromB1' }); await tick(); await tick(); info(kex, { reason: 'FromB2' }); }
    ),
  ]);
  assert.deepEqual(a.posted.map((e) => [e.reason, e.reportingComponent]), [['FromA1', 'op-a'], ['FromA2', 'op-a']]);
  assert.deepEqual(b.posted.map((e) => [e.reason, e.reportingComponent]), [['FromB1', 'op-b'], ['FromB2', 'op-b']]);
});

test('a narrower context (per handler, with the body) nests inside the operator\'s and ends with it', () => {
  const { context } = operator();
  runWithOperatorContext(context, () => {
    assert.equal(currentOperatorContext()?.body, undefined);
    runWithOperatorContext({ ...context, body: kex }, () => {
      assert.equal(currentOperatorContext()?.body, kex);
      assert.equal(currentOperatorContext()?.poster, context.poster);
    });
    assert.equal(currentOperatorContext(), context);
  });
  assert.equal(currentOperatorContext(), undefined);
});
