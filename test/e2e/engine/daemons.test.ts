/**
 * Timers and daemons end to end, embedded in the test's process, on a real control plane: a daemon
 * is stopped on deletion (its object keeps the finalizer until it has exited), on a mismatch (a
 * label removed; spawned again when it matches again), on its own exit (never spawned again) and
 * on the operator's exit; a timer never overlaps itself, idles until the object has not changed,
 * writes its results, and retries its errors. Everything awaited is an event: a handler's call
 * (a journal), a log line, or an object's state seen by a watch — never a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import type { StopReason } from '../../../runtime/registry/contexts.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FINALIZER } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { examplesOf } from './kopfexamples.ts';
import { Journal, gate } from './journal.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();

/** Registers a daemon that notes its start, waits until it is stopped, and notes why. */
function journaling(
  registry: OperatorRegistry,
  journal: Journal,
  id: string,
  options: { labels?: Record<string, string> } = {},
): void {
  registry.on.daemon(KopfExample, async function journaled({ stopped }) {
    journal.add('started');
    await stopped.wait();
    journal.add(`stopped: ${stopped.reason}`);
  }, { id, ...options });
}

const { ref, create, setField, cleanup, watcher } = examplesOf(cluster);

test('a deleted object keeps its finalizer until its daemon has exited; the daemon is told why', async (t) => {
  const journal = new Journal();
  const release = gate();
  const registry = new OperatorRegistry();
  registry.on.daemon(KopfExample, async function holder({ stopped }) {
    journal.add('started');
    await stopped.wait();
    journal.add(`stopped: ${stopped.reason satisfies StopReason | undefined}`);
    await release.wait;
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('d1');
    await journal.until('started');
    await observer.waitFor(KopfExample, ref('d1'), (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)));
    await deleteObject(cluster.client, KopfExample, ref('d1'));
    await journal.until('stopped: resource deleted');
    const held = await observer.read(KopfExample, ref('d1'));
    assert.ok(held.metadata?.deletionTimestamp, 'the deletion is requested');
    assert.deepEqual(held.metadata?.finalizers, [FINALIZER], 'the exiting daemon holds the finalizer');
    release.open();
    await observer.waitFor(KopfExample, ref('d1'), (o) => o === null);
    await capture.waitFor("Daemon 'holder' has exited on request and will not be retried or restarted.");
    assert.ok(capture.messages().includes('Removing the finalizer, thus allowing the actual deletion.'));
  });
});

test('the delete handlers of an object run once, after its daemon has exited', async (t) => {
  const journal = new Journal();
  const release = gate();
  const registry = new OperatorRegistry();
  registry.on.daemon(KopfExample, async function lingering({ stopped }) {
    journal.add('started');
    await stopped.wait();
    await release.wait;
    journal.add('exited');
  });
  registry.on.delete(KopfExample, function cleanup() { journal.add('delete handler'); });
  const observer = watcher(t);
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('d4');
    await journal.until('started');
    await observer.waitFor(KopfExample, ref('d4'), (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)));
    await deleteObject(cluster.client, KopfExample, ref('d4'));
    await capture.waitFor(/^Daemon 'lingering' is still exiting\. The next check is in 60 seconds\.$/);
    assert.equal(journal.count('delete handler'), 0, 'the delete handler waits for the daemon');
    release.open();
    await observer.waitFor(KopfExample, ref('d4'), (o) => o === null);
  });
  assert.deepEqual(journal.entries, ['started', 'exited', 'delete handler']);
});

test('a daemon whose object no longer matches is stopped, and spawned again when it matches again', async (t) => {
  cleanup(t, 'd2');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  journaling(registry, journal, 'follower', { labels: { follow: 'yes' } });
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('d2', { labels: { follow: 'yes' } });
    await journal.until('started');
    await patchObject(cluster.client, KopfExample, ref('d2'), { metadata: { labels: { follow: null } } } as never);
    await journal.until('stopped: no longer matching');
    await capture.waitFor("Daemon 'follower' has exited on request and will not be retried or restarted.");
    await patchObject(cluster.client, KopfExample, ref('d2'), { metadata: { labels: { follow: 'yes' } } });
    await journal.until('started', 2);
  });
  assert.deepEqual(journal.entries, ['started', 'stopped: no longer matching', 'started', 'stopped: operator exiting']);
});

test('a pause of the operator (its pause toggles, as peering turns them) stops a daemon with its reason and its ' +
  'timers; the resume spawns it again', async (t) => {
  cleanup(t, 'd5');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  journaling(registry, journal, 'pausable');
  // A timer must not tick while paused either (Kopf once kept a paused replica's timers running).
  let pausedTicks = 0;
  let ticks = 0;
  let paused = () => false;
  registry.on.timer(KopfExample, function ticking() { ticks++; if (paused()) pausedTicks++; }, { interval: 0.05 });
  await withOperator(cluster, registry, async ({ op }) => {
    paused = () => op.paused;
    await create('d5');
    await journal.until('started');
    const blocker = op.pauses.make('a test');
    blocker.turn(true);
    await journal.until('stopped: operator pausing');
    const before = ticks;
    // An absence has no event to await: the pause lasts twenty of the timer's intervals.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(ticks, before, 'the timer ticked while the operator was paused');
    blocker.turn(false);
    await journal.until('started', 2);
  });
  assert.equal(pausedTicks, 0, 'a timer call began while the operator was paused');
  assert.deepEqual(journal.entries, ['started', 'stopped: operator pausing', 'started', 'stopped: operator exiting']);
});

test('a daemon that returns writes its result and is not spawned again for its object', async (t) => {
  cleanup(t, 'd3');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.daemon(KopfExample, function once({ patch }) {
    journal.add('ran');
    patch.status.note = 'patched';
    return { done: true };
  }, {
    // Filters are evaluated on every event just before spawning: they show each event was seen.
    when: ({ spec }) => { journal.add(`seen ${spec.field}`); return true; },
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('d3');
    await journal.until('ran');
    const done = await observer.waitFor(KopfExample, ref('d3'), (o) => Boolean(o?.status?.once));
    assert.deepEqual(done?.status?.once, { done: true });
    assert.equal(done?.status?.note, 'patched');
    await capture.waitFor("Daemon 'once' has exited on its own and will not be retried or restarted.");
    // It no longer needs the finalizer: it goes, and a change later spawns nothing.
    await observer.waitFor(KopfExample, ref('d3'), (o) => !o?.metadata?.finalizers?.length);
    await setField('d3', 'b');
    await journal.until('seen b');
    await new Promise((resolve) => setImmediate(resolve)); // the spawning follows the filters in the same turn
    assert.equal(journal.count('ran'), 1);
  });
});

test('a daemon that took spec out of its context sees the object as it is when it reads it, not as it was when it ' +
  'started', async (t) => {
  cleanup(t, 'd6');
  const journal = new Journal();
  const changed = gate();
  const registry = new OperatorRegistry();
  registry.on.daemon(KopfExample, async function follow({ spec, labels }) {
    journal.add(`started with ${spec.field}`);
    await changed.wait;
    return { field: spec.field, labels: { ...labels } };
  }, {
    // The spawner evaluates the filters on every event, and takes the event's body in the same turn.
    when: ({ spec }) => { journal.add(`seen ${spec.field}`); return true; },
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('d6', { field: 'a' });
    await journal.until('started with a');
    await patchObject(
      cluster.client,
      KopfExample,
      ref('d6'),
      { metadata: { labels: { now: 'b' } }, spec: { field: 'b' } },
    );
    await journal.until('seen b');
    changed.open();
    const done = await observer.waitFor(KopfExample, ref('d6'), (o) => Boolean(o?.status?.follow));
    assert.deepEqual(done?.status?.follow, { field: 'b', labels: { now: 'b' } });
  });
});

test('a timer never runs twice at once, and writes each result to status.<id>', async (t) => {
  cleanup(t, 't1');
  const journal = new Journal();
  let running = false;
  let calls = 0;
  const registry = new OperatorRegistry();
  registry.on.timer(KopfExample, async function counter({ stopped }) {
    if (running) journal.add('overlap');
    running = true;
    calls++;
    journal.add('call');
    await stopped.wait(0.3); // longer than the interval
    running = false;
    return { calls };
  }, { interval: 0.1 });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('t1');
    await journal.until('call', 3);
    const seen = await observer.waitFor(
      KopfExample,
      ref('t1'),
      (o) => Number((o?.status?.counter as { calls?: number } | undefined)?.calls) >= 3,
    );
    assert.ok(seen);
  });
  assert.equal(journal.count('overlap'), 0);
});

test('an idle timer runs when the object has not changed for a while, and again only after the next change', async (
  t
) => {
  cleanup(t, 't2');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.timer(KopfExample, function idler({ spec }) {
    journal.add(`idle call: ${spec.field}`);
  }, { idle: 0.5, when: ({ spec }) => { journal.add(`seen ${spec.field}`); return true; } });
  await withOperator(cluster, registry, async () => {
    await create('t2', { field: 'a' });
    await journal.until('idle call: a');
    await setField('t2', 'b');
    await journal.until('idle call: b');
    await setField('t2', 'c');
    await journal.until('idle call: c');
  });
  const calls = journal.entries.filter((e) => e.startsWith('idle call'));
  assert.deepEqual(
    calls,
    ['idle call: a', 'idle call: b', 'idle call: c'],
    'one call per quiet period, with the latest body',
  );
  // Each call comes after the change it reports: the essence's change restarted the idling.
  assert.ok(journal.entries.indexOf('seen b') < journal.entries.indexOf('idle call: b'));
  assert.ok(journal.entries.indexOf('seen c') < journal.entries.indexOf('idle call: c'));
});

test('a timer retries its errors with their delays, and starts the retries anew after a success', async (t) => {
  cleanup(t, 't3');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  let attempts = 0;
  registry.on.timer(KopfExample, function flaky({ retry }) {
    journal.add(`retry ${retry}`);
    if (++attempts < 3) throw new TemporaryError('not yet', { delay: 0.1 });
  }, { interval: 0.1 });
  registry.on.daemon(KopfExample, function doomed() {
    journal.add('doomed');
    throw new Error('boom');
  }, { retries: 2, backoff: 0.1 });
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('t3');
    await journal.until('retry 0', 2);
    await journal.until('doomed', 2);
    await capture.waitFor("Daemon 'doomed' has exited on its own and will not be retried or restarted.");
    assert.ok(capture.messages().includes("Timer 'flaky' failed temporarily: not yet"));
    assert.ok(capture.messages().includes("Timer 'flaky' succeeded."));
    assert.ok(
      capture.messages().includes(
        "Daemon 'doomed' failed with an exception and will stop now (it would exceed 2 retries on the next " +
          "attempt): boom"
      ),
      capture.messages().join('\n'),
    );
  });
  const timer = journal.entries.filter((e) => e.startsWith('retry'));
  assert.deepEqual(timer.slice(0, 4), ['retry 0', 'retry 1', 'retry 2', 'retry 0']);
  assert.equal(journal.count('doomed'), 2, 'a daemon that failed for good is not spawned again');
});
