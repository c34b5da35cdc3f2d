import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeOnce } from '../../../runtime/handling/execution.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import type { HandlerBase } from '../../../runtime/registry/handlers.ts';
import { Timestamp, freshState } from '../../../runtime/progress/index.ts';

function handler(overrides: Partial<HandlerBase> = {}): HandlerBase {
  return {
    id: 'fn',
    fn: () => undefined,
    param: undefined,
    errors: undefined,
    timeout: undefined,
    retries: undefined,
    backoff: undefined,
    ...overrides
  };
}

function logger() {
  const capture = captureLogs();
  return {
    logger: new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.objects'),
    messages: () => capture.records.map((r) => r.message),
  };
}

const now = Timestamp.parse('2026-01-01T00:00:00+00:00');
const at = (seconds: number) => now.plus(seconds).toIso();

test('success finishes the handler and keeps the result', async () => {
  const { logger: l, messages } = logger();
  const r = await executeOnce(
    handler(),
    undefined,
    { defaultBackoff: 60, logger: l, now, purpose: 'create' },
    async () => ({ message: 'hi' }),
  );
  assert.equal(r.outcome.final, true);
  assert.deepEqual(r.outcome.result, { message: 'hi' });
  assert.equal(r.state.retries, 1);
  assert.equal(r.state.success, true);
  assert.equal(r.state.purpose, 'create');
  assert.deepEqual(messages(), ["Handler 'fn' is invoked.", "Handler 'fn' succeeded."]);
});

test('a temporary error delays the retry by its delay', async () => {
  const { logger: l, messages } = logger();
  const r = await executeOnce(
    handler(),
    undefined,
    { defaultBackoff: 60, logger: l, now },
    async () => { throw new TemporaryError('not yet', { delay: 5 }); },
  );
  assert.equal(r.outcome.final, false);
  assert.equal(r.state.delayed?.toIso(), at(5));
  assert.equal(r.state.message, 'not yet');
  assert.equal(messages().at(-1), "Handler 'fn' failed temporarily: not yet");
});

test('an arbitrary error is retried after the backoff, or ignored, or final — by the errors mode', async () => {
  const boom = async () => { throw new Error('boom'); };
  let { logger: l, messages } = logger();
  let r = await executeOnce(handler({ backoff: 2 }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.state.delayed?.toIso(), at(2));
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will try again in 2 seconds: boom");

  ({ logger: l, messages } = logger());
  r = await executeOnce(handler({ errors: 'ignored' }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.outcome.final, true);
  assert.equal(r.state.success, true);
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will ignore it: boom");

  ({ logger: l, messages } = logger());
  r = await executeOnce(handler({ errors: 'permanent' }), undefined, { defaultBackoff: 60, logger: l, now }, boom);
  assert.equal(r.state.failure, true);
  assert.equal(messages().at(-1), "Handler 'fn' failed with an exception and will stop now: boom");
});

test('retries look ahead: the attempt that would exceed the limit fails now', async () => {
  const { logger: l, messages } = logger();
  const previous = { ...freshState(now), retries: 2 };
  const r = await executeOnce(
    handler({ retries: 3, backoff: 1 }),
    previous,
    { defaultBackoff: 60, logger: l, now },
    async () => { throw new Error('boom'); },
  );
  assert.equal(r.state.failure, true);
  assert.equal(r.state.retries, 3);
  assert.equal(
    r.state.message,
    "Handler 'fn' failed with an exception and will stop now (it would exceed 3 retries on the next attempt): boom",
  );
  assert.equal(
    messages().at(-1),
    "Handler 'fn' failed with an exception and will stop now (it would exceed 3 retries on the next attempt): boom",
  );
});

test('a permanent error fails at once; an exhausted timeout fails before calling', async () => {
  let { logger: l } = logger();
  let r = await executeOnce(
    handler(),
    undefined,
    { defaultBackoff: 60, logger: l, now },
    async () => { throw new PermanentError('no way'); },
  );
  assert.equal(r.state.failure, true);
  assert.equal(r.state.message, 'no way');

  ({ logger: l } = logger());
  let called = false;
  r = await executeOnce(
    handler({ timeout: 60 }),
    { ...freshState(now.plus(-61)), retries: 1 },
    { defaultBackoff: 60, logger: l, now },
    async () => { called = true; },
  );
  assert.equal(called, false);
  assert.equal(r.state.failure, true);
  assert.equal(r.state.message, "Handler 'fn' has timed out after 0:01:01.");
});


test('a handler that fails once cancelled is not failed: the cancellation goes on up, with no outcome', async () => {
  const canceller = new AbortController();
  const { logger: l, messages } = logger();
  const cancellable = async () => {
    await new Promise(
      (_, reject) => canceller.signal.addEventListener('abort', () => reject(canceller.signal.reason), { once: true })
    );
  };
  const running = executeOnce(
    handler(),
    undefined,
    { defaultBackoff: 60, logger: l, now, cancelled: canceller.signal },
    cancellable,
  );
  canceller.abort(new Error('stop now'));
  await assert.rejects(running, /stop now/);
  assert.deepEqual(messages(), ["Handler 'fn' is invoked.", "Handler 'fn' is cancelled. Will escalate."]);

  // The same signal, not aborted: the same failure is an ordinary one, retried after the backoff.
  const idle = new AbortController();
  const { logger: l2, messages: m2 } = logger();
  const r = await executeOnce(
    handler({ backoff: 2 }),
    undefined,
    { defaultBackoff: 60, logger: l2, now, cancelled: idle.signal },
    async () => { throw new Error('stop now'); },
  );
  assert.equal(r.state.delayed?.toIso(), at(2));
  assert.equal(m2().at(-1), "Handler 'fn' failed with an exception and will try again in 2 seconds: stop now");
});
