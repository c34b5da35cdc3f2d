import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { ActivityError, runActivity } from '../../../runtime/activities/activities.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { ResourceClient } from '../../../runtime/kube/index.ts';

function env(signal: AbortSignal) {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const client = new ResourceClient(() => { throw new Error('no API in these tests'); });
  return { env: { settings: defaultSettings(), logger, memo: {}, client, signal }, messages: () => capture.messages() };
}

test('an activity gets the signal that ends it; failing once it is aborted, it is cancelled and the rest do not ' +
  'run', async () => {
  const registry = new OperatorRegistry();
  const seen: AbortSignal[] = [];
  let started!: () => void;
  const running = new Promise<void>((resolve) => { started = resolve; });
  registry.on.cleanup(async function release_fn({ signal }) {
    seen.push(signal);
    started();
    await delay(3_600_000, undefined, { signal });
  });
  registry.on.cleanup(async function after_fn() { seen.push(new AbortController().signal); });
  const limit = new AbortController();
  const { env: e, messages } = env(limit.signal);
  const cleanup = runActivity(registry.activityHandlers, 'cleanup', e);
  await running;
  limit.abort(new Error('the time for cleanup is over'));
  await cleanup; // does not reject: a cancellation is no failure of the cleanup
  assert.deepEqual(seen, [limit.signal], 'the handler got the signal, and the next one was not started');
  assert.deepEqual(
    messages(),
    ["Activity 'release_fn' is invoked.", "Activity 'release_fn' is cancelled. Will escalate."],
  );
});

test('a startup activity that fails while its signal is not aborted fails as before', async () => {
  const registry = new OperatorRegistry();
  registry.on.startup(async function broken_fn() { throw new Error('boom'); }, { errors: 'permanent' });
  const { env: e, messages } = env(new AbortController().signal);
  await assert.rejects(
    runActivity(registry.activityHandlers, 'startup', e),
    /One or more startup handlers failed: broken_fn: boom/,
  );
  assert.equal(messages().at(-1), "Activity 'broken_fn' failed with an exception and will stop now: boom");
});

test('the error of a failed activity names each failed handler once, with its message', async () => {
  const registry = new OperatorRegistry();
  registry.on.startup(async function fine_fn() { /* succeeds */ });
  registry.on.startup(async function broken_fn() { throw new Error('boom'); }, { errors: 'permanent' });
  registry.on.startup(async function other_fn() { throw new Error('bang'); }, { errors: 'permanent' });
  const { env: e } = env(new AbortController().signal);
  const error = await runActivity(registry.activityHandlers, 'startup', e).then(() => undefined, (x: unknown) => x);
  assert.ok(error instanceof ActivityError);
  assert.deepEqual(error.failures, [{ id: 'broken_fn', message: 'boom' }, { id: 'other_fn', message: 'bang' }]);
  assert.equal(error.message, 'One or more startup handlers failed: broken_fn: boom; other_fn: bang');
});
