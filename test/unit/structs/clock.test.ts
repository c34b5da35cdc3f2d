/**
 * The handlers' clock without a cluster: a virtual clock fires its timers in order, each at its
 * time, only when advanced; and the runtime's scheduling of handlers waits on the clock of the
 * work it runs in — a reconciler's requeue, resync and retry, a daemon's sleep, the timers' queue,
 * the progress records' time stamps, and `now()` in a handler's context.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../../runtime/testing/virtual-clock.ts';
import { clockNow, currentClock, runInClock, systemClock } from '../../../runtime/structs/clock.ts';
import { Timestamp } from '../../../runtime/progress/index.ts';
import { Stopper } from '../../../runtime/daemons/stop-flag.ts';
import { dueQueueOf, timerQueue } from '../../../runtime/daemons/due-queue.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

const START = Date.UTC(2030, 0, 1);

test('a virtual clock fires its timers only when advanced, in order, each at its own time', async () => {
  const clock = new VirtualClock(START);
  const fired: string[] = [];
  const at = () => (clock.now() - START) / 1000;
  clock.setTimer(() => fired.push(`b@${at()}`), 20_000);
  clock.setTimer(() => fired.push(`a@${at()}`), 10_000);
  const cancelled = clock.setTimer(() => fired.push('never'), 15_000);
  clock.setTimer(() => {
    fired.push(`c@${at()}`);
    clock.setTimer(() => fired.push(`d@${at()}`), 5_000); // set by a fired one, due within the span
  }, 30_000);
  cancelled.cancel();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(fired, [], 'nothing fires while the clock stands');
  await clock.advance(25);
  assert.deepEqual(fired, ['a@10', 'b@20']);
  assert.equal(clock.now(), START + 25_000);
  await clock.advance(100);
  assert.deepEqual(fired, ['a@10', 'b@20', 'c@30', 'd@35']);
  assert.equal(clock.waiting, 0);
  await assert.rejects(clock.advance(-1), RangeError);
});

test('the work of an operator given a clock reads that clock; other work the system\'s', async () => {
  const clock = new VirtualClock(START);
  assert.equal(currentClock(), systemClock);
  await runInClock(clock, async () => {
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(currentClock(), clock, 'carried across awaits');
    assert.equal(clockNow().getTime(), START);
    assert.equal(Timestamp.now().ms, START, 'progress records are stamped by it');
    assert.equal(dueQueueOf(clock).clock, clock);
    assert.notEqual(dueQueueOf(clock), timerQueue);
    clock.setTimer(() => assert.equal(currentClock(), clock, 'its timers fire in the context they were set in'), 1);
  });
  await clock.advance(1);
  assert.equal(dueQueueOf(systemClock), timerQueue);
});

test('a daemon\'s sleep ends when the clock has moved its seconds, or at once when it is stopped', async () => {
  const clock = new VirtualClock(START);
  const stopper = new Stopper();
  const slept = runInClock(clock, () => stopper.wait(300));
  let ended = false;
  void slept.then(() => { ended = true; });
  await clock.advance(299);
  assert.equal(ended, false);
  await clock.advance(1);
  assert.equal(await slept, false, 'slept its time, not stopped');
  const forever = runInClock(clock, () => stopper.wait());
  stopper.stop('operator exiting');
  assert.equal(await forever, true);
});

test('a reconciler\'s requeue, resync and retry wait on the operator\'s clock', async () => {
  const { ResourceReconciler } = await import('../../../runtime/reconciling/reconciler.ts');
  const { KeptFields } = await import('../../../runtime/actions/inconsistencies.ts');
  const clock = new VirtualClock(START);
  const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [captureLogs().sink] }));
  const results: unknown[] = [{ requeueAfter: 60 }, undefined, new Error('once')];
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function converge() {
    const result = results.shift();
    if (result instanceof Error) throw result;
    return result as { requeueAfter?: number } | undefined;
  }, { resync: 600 });
  const [handler] = registry.resourceHandlers;
  if (handler?.kind !== 'reconcile') throw new Error('no reconciler');
  const requests: string[] = [];
  const stopping = new AbortController();
  const scope = {
    resource: KopfExample, client: undefined as never, settings: defaultSettings({ reconciling: { backoffBase: 2 } }),
    kept: new KeptFields(), poster: undefined as never, logger, cancelled: stopping.signal, enqueue: () => undefined,
  };
  const request = (_key: string, event: RawEvent) => requests.push(`${event.trigger}@${(clock.now() - START) / 1000}`);
  const reconciler = new ResourceReconciler(handler, { scope, enqueue: request, stopping: stopping.signal });
  const body = { metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '1' } } as KubeObject;
  const view = { key: 'u', body, context: { body } as never, logger };
  // Its patch is empty, so nothing is written (there is no client here).
  const run = () => runInClock(clock, () => reconciler.reconcile(view));
  try {
    await run();
    await clock.advance(59);
    assert.deepEqual(requests, []);
    await clock.advance(1);
    assert.deepEqual(requests, ['requeue@60']);
    await run();
    await clock.advance(600);
    assert.deepEqual(requests, ['requeue@60', 'resync@660']);
    await run();
    await clock.advance(2);
    assert.deepEqual(requests, ['requeue@60', 'resync@660', 'retry@662']);
  } finally {
    stopping.abort();
    reconciler.forget('u');
  }
});
