import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeOnce } from '../../../runtime/handling/execution.ts';
import { formatTimedelta } from '../../../runtime/handling/durations.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import type { HandlerBase } from '../../../runtime/registry/handlers.ts';

function handler(overrides: Partial<HandlerBase> = {}): HandlerBase {
  return { id: 'fn', fn: () => undefined, param: undefined, errors: undefined, timeout: undefined, retries: undefined, backoff: undefined, ...overrides };
}

function logger() {
  const capture = captureLogs();
  return { logger: new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.objects'), messages: () => capture.records.map((r) => r.message) };
}

const now = new Date('2026-01-01T00:00:00Z');

test('success finishes the handler and keeps the result', async () => {
  const { logger: l, messages } = logger();
  const r = await executeOnce(handler(), undefined, { defaultBackoff: 60, logger: l, now, purpose: 'create' }, async () => ({ message: 'hi' }));
  assert.equal(r.finished, true);
  assert.deepEqual(r.result, { message: 'hi' });
  assert.equal(r.state.retries, 1);
  assert.equal(r.state.success, true);
  assert.equal(r.state.purpose, 'create');
  assert.deepEqual(messages(), ["Handler 'fn' is invoked.", "Handler 'fn' succeeded."]);
});

test('a temporary error delays the retry by its delay', async () => {
  const { logger: l, messages } = logger();
  const r = await executeOnce(handler(), undefined, { defaultBackoff: 60, logger: l, now }, async () => { throw new TemporaryError('not yet', { delay: 5 }); });
  assert.equal(r.finished, false);
  assert.equal(r.state.delayed?.getTime(), now.getTime() + 5000);
  assert.equal(r.state.message, 'not yet');
  assert.equal(messages().at(-1), "Handler 'fn' failed temporarily: not yet");
});

test('an arbitrary error is retried after the backoff, or ignored, or final — by the errors mode', async () => {
  const boom = async () => { throw new Error('boom'); };
  let { logger: l, messages } = logger();
  let r = await executeOnce(handler({ backoff: 2 }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.state.delayed?.getTime(), now.getTime() + 2000);
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will try again in 2.0 seconds: boom");

  ({ logger: l, messages } = logger());
  r = await executeOnce(handler({ errors: 'ignored' }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.finished, true);
  assert.equal(r.state.success, true);
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will ignore it: boom");

  ({ logger: l, messages } = logger());
  r = await executeOnce(handler({ errors: 'permanent' }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.state.failure, true);
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will stop now: boom");
});

test('retries look ahead: the attempt that would exceed the limit fails now', async () => {
  const { logger: l, messages } = logger();
  const previous = { started: now, retries: 2, success: false, failure: false };
  const r = await executeOnce(handler({ retries: 3, backoff: 1 }), previous, { defaultBackoff: 60, logger: l, now }, async () => { throw new Error('boom'); });
  assert.equal(r.state.failure, true);
  assert.equal(r.state.retries, 3);
  assert.equal(r.state.message, "Handler 'fn' has exceeded 3 retries.");
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will stop now (it would exceed 3 retries on the next attempt): boom");
});

test('a permanent error fails at once; an exhausted timeout fails before calling', async () => {
  let { logger: l } = logger();
  let r = await executeOnce(handler(), undefined, { defaultBackoff: 60, logger: l, now }, async () => { throw new PermanentError('no way'); });
  assert.equal(r.state.failure, true);
  assert.equal(r.state.message, 'no way');

  ({ logger: l } = logger());
  let called = false;
  const started = new Date(now.getTime() - 61_000);
  r = await executeOnce(handler({ timeout: 60 }), { started, retries: 1, success: false, failure: false }, { defaultBackoff: 60, logger: l, now }, async () => { called = true; });
  assert.equal(called, false);
  assert.equal(r.state.failure, true);
  assert.equal(r.state.message, "Handler 'fn' has timed out after 0:01:01.");
});

test('durations print as Python timedeltas', () => {
  assert.equal(formatTimedelta(61), '0:01:01');
  assert.equal(formatTimedelta(1.25), '0:00:01.250000');
  assert.equal(formatTimedelta(90061), '1 day, 1:01:01');
});
