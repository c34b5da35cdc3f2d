import { test } from 'node:test';
import { ev, held, req, type Named } from './requests.ts';
import assert from 'node:assert/strict';
import { ObjectQueues } from '../../../runtime/queueing/workers.ts';
import { sleep, within, withinCycles } from '../../../runtime/queueing/sleeping.ts';

/** A latch: a promise resolved from outside. */
function latch<T = void>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => { open = r; });
  return { promise, open };
}

test('events of one object are processed one at a time, the latest pending one wins', async () => {
  const seen: number[] = [];
  const first = latch();
  const release = latch();
  let active = 0, maxActive = 0;
  const done = latch();
  const queues = new ObjectQueues<Named<number>>(async (_key, { event: { name: event } }) => {
    active++; maxActive = Math.max(maxActive, active);
    seen.push(event);
    if (event === 1) { first.open(); await release.promise; }
    active--;
    if (event === 4) done.open();
  });
  queues.enqueue('a', ev(1));
  await first.promise;
  queues.enqueue('a', ev(2));
  queues.enqueue('a', ev(3));
  queues.enqueue('a', ev(4));
  release.open();
  await done.promise;
  assert.deepEqual(seen, [1, 4]);
  assert.equal(maxActive, 1);
});

test('an event held for the indexes is queued only when no event waits (a waiting one is newer)', async () => {
  const seen: string[] = [];
  const first = latch();
  const release = latch();
  const done = latch();
  const queues = new ObjectQueues<Named<string>>(async (key, { event: { name: event } }) => {
    seen.push(`${key}:${event}`);
    if (event === 'running') { first.open(); await release.promise; }
    if (key === 'a' && event !== 'running') done.open();
  });
  queues.enqueue('a', ev('running'));
  await first.promise;
  queues.enqueue('a', ev('newer'));
  queues.enqueue('a', held('older'));
  queues.enqueue('b', held('offered'));
  release.open();
  await done.promise;
  await queues.stop(5);
  assert.deepEqual(seen, ['a:running', 'b:offered', 'a:newer']);
});

test('an event held for the indexes replaces a waiting reconcile request, which has no state of its own', async () => {
  const seen: string[] = [];
  const first = latch();
  const release = latch();
  const done = latch();
  const queues = new ObjectQueues<Named<string>>(async (_key, { event: { name: event } }) => {
    seen.push(event);
    if (event === 'running') { first.open(); await release.promise; }
    else done.open();
  });
  queues.enqueue('a', ev('running'));
  await first.promise;
  queues.enqueue('a', req('request'));
  queues.enqueue('a', held('held'));
  release.open();
  await done.promise;
  await queues.stop(5);
  assert.deepEqual(seen, ['running', 'held']);
});

test('a newer event interrupts the running cycle\'s sleep through its pressure signal', async () => {
  const slept = latch<boolean>();
  const started = latch();
  const queues = new ObjectQueues<Named<string>>(async (_key, { event: { name: event }, pressure }) => {
    if (event === 'slow') { started.open(); slept.open(await sleep(3600, pressure)); }
  });
  queues.enqueue('x', ev('slow'));
  await started.promise;
  queues.enqueue('x', ev('newer'));
  assert.equal(await slept.promise, false);
  await queues.stop(5);
});

test('different objects run concurrently, bounded by the worker limit', async () => {
  let active = 0, maxActive = 0, finished = 0;
  const allDone = latch();
  const gate = latch();
  const queues = new ObjectQueues<Named<number>>(async () => {
    active++; maxActive = Math.max(maxActive, active);
    await gate.promise;
    active--;
    if (++finished === 6) allDone.open();
  }, { workerLimit: 2 });
  for (let i = 0; i < 6; i++) queues.enqueue(`k${i}`, ev(i));
  await new Promise((r) => setImmediate(r));
  assert.equal(active, 2);
  gate.open();
  await allDone.promise;
  assert.equal(maxActive, 2);
  await queues.stop(5); // waits for the workers to return
  assert.equal(queues.size, 0, 'nothing is kept per object once its queue is drained');
});

test('stop() drops pending events and interrupts sleeps', async () => {
  const started = latch();
  const result = latch<boolean>();
  let calls = 0;
  const queues = new ObjectQueues<Named<number>>(
    async (_k, { pressure }) => { calls++; started.open(); result.open(await sleep(3600, pressure)); }
  );
  queues.enqueue('a', ev(1));
  await started.promise;
  queues.enqueue('a', ev(2)); // aborts the sleep, but stop() comes before it is taken
  await queues.stop(5);
  assert.equal(await result.promise, false);
  assert.equal(calls, 1);
});

test('a paused queue starts no cycle, keeps the latest event per object, and goes on when resumed', async () => {
  const seen: string[] = [];
  const done = latch();
  const queues = new ObjectQueues<Named<string>>(
    async (key, { event: { name: event } }) => { seen.push(`${key}:${event}`); if (seen.length === 2) done.open(); }
  );
  queues.pause();
  assert.equal(queues.isPaused, true);
  queues.enqueue('a', ev('a1'));
  queues.enqueue('a', ev('a2'));
  queues.enqueue('b', ev('b1'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [], 'nothing runs while paused');
  queues.resume();
  await done.promise;
  assert.deepEqual(seen.sort(), ['a:a2', 'b:b1']);
  await queues.stop(5);
});

test('pausing interrupts the sleeps of running cycles; stopping a paused queue ends it', async () => {
  const started = latch();
  const slept = latch<boolean>();
  const queues = new ObjectQueues<Named<number>>(
    async (_k, { pressure }) => { started.open(); slept.open(await sleep(3600, pressure)); }
  );
  queues.enqueue('a', ev(1));
  await started.promise;
  queues.pause();
  assert.equal(await slept.promise, false);
  queues.enqueue('a', ev(2));
  await queues.stop(5);
  assert.equal(queues.size, 0);
});

test('stop() returns the keys of the cycles still running after its timeout', async () => {
  const started = latch();
  const quick = latch();
  const queues = new ObjectQueues<Named<number>>(async (key) => {
    if (key === 'quick') return quick.open();
    started.open();
    await new Promise(() => undefined); // never ends
  });
  queues.enqueue('stuck', ev(1));
  queues.enqueue('quick', ev(1));
  await Promise.all([started.promise, quick.promise]);
  assert.deepEqual(await queues.stop(0.05), ['stuck']);
});

test('objects waiting for a worker start in the order they came; stop() forgets them and reports only running ' +
  'cycles', async () => {
  const order: string[] = [];
  const gates = new Map<string, ReturnType<typeof latch<void>>>();
  const started = new Map<string, ReturnType<typeof latch<void>>>();
  for (const k of ['a', 'b', 'c', 'd']) { gates.set(k, latch()); started.set(k, latch()); }
  const queues = new ObjectQueues<Named<number>>(async (key) => {
    order.push(key);
    started.get(key)!.open();
    await gates.get(key)!.promise;
  }, { workerLimit: 1 });
  for (const k of ['a', 'c', 'b', 'd']) queues.enqueue(k, ev(1));
  await started.get('a')!.promise;
  gates.get('a')!.open();
  await started.get('c')!.promise;
  assert.deepEqual(order, ['a', 'c']);
  assert.equal(queues.size, 3, 'the running object and the two waiting ones');
  assert.deepEqual(await queues.stop(0.05), ['c'], 'the waiting objects are not abandoned cycles');
  assert.deepEqual(order, ['a', 'c'], 'nothing starts after the stop');
});

test('after stop(), settle() waits again for the cycles that were still running, and returns those that still ' +
  'are', async () => {
  const told = new AbortController();
  const started = { a: latch(), b: latch() };
  const queues = new ObjectQueues<Named<number>>(async (key) => {
    started[key as 'a' | 'b'].open();
    if (key === 'a') await new Promise((resolve) => told.signal.addEventListener('abort', resolve, { once: true }));
    else await new Promise(() => undefined); // deaf to being told
  });
  queues.enqueue('a', ev(1));
  queues.enqueue('b', ev(1));
  await Promise.all([started.a.promise, started.b.promise]);
  assert.deepEqual((await queues.stop(0.01)).sort(), ['a', 'b']);
  told.abort();
  assert.deepEqual(await queues.settle((running) => withinCycles(running, 10)), ['b']);
});

test('within() and withinCycles() end with the promise, or after their time or turns of the loop', async () => {
  // A clock of loop turns, ticking alongside the waits.
  let turns = 0, ticking = true;
  const clock = (async () => { while (ticking) { await new Promise((r) => setImmediate(r)); turns++; } })();
  const afterTurns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
  const turnsOf = async (wait: Promise<void>) => { const t0 = turns; await wait; return turns - t0; };

  const early = await turnsOf(withinCycles(afterTurns(3), 10));
  assert.ok(early >= 3 && early <= 4, `a promise settled in the third turn ends the wait there: ${early}`);
  const full = await turnsOf(withinCycles(new Promise(() => undefined), 5));
  assert.ok(full >= 4 && full <= 6, `one that never settles gets the turns asked for: ${full}`);
  ticking = false;
  await clock;

  const t0 = performance.now();
  await within(new Promise(() => undefined), 0.05);
  assert.ok(performance.now() - t0 >= 45, 'the time is waited out');
  await within(Promise.reject(new Error('rejected')), 60); // a rejection ends the wait too, quietly
});
