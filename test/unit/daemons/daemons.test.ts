/**
 * Timers and daemons per object, without an API server: spawning, the stop reasons, no respawn
 * after an exit of its own, respawn after a mismatch or a pause, and the operator's Pausing that
 * peering will use. (End to end, on a real API server: test/e2e/engine/daemons.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { RegistrationError } from '../../../runtime/registry/ids.ts';
import type { SpawningHandler } from '../../../runtime/registry/handlers.ts';
import type { FilterContext, SpawningContext, StopReason } from '../../../runtime/registry/contexts.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { Spawner } from '../../../runtime/daemons/spawning.ts';
import { Pausing } from '../../../runtime/daemons/pausing.ts';
import { intervalWait } from '../../../runtime/daemons/loops.ts';
import { Stopper } from '../../../runtime/daemons/stop-flag.ts';
import { timerQueue } from '../../../runtime/daemons/due-queue.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { FRESH, processorOf } from '../processing/processor.ts';

/** Signals what a daemon does, to be awaited by the test (never slept on). */
class Journal {
  readonly entries: string[] = [];
  private readonly waiters: (() => void)[] = [];
  add(entry: string): void {
    this.entries.push(entry);
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  async until(entry: string, count = 1): Promise<void> {
    while (this.entries.filter((e) => e === entry).length < count)
      await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

async function withSpawner(register: (registry: OperatorRegistry, journal: Journal) => void, body: (env: {
  spawner: Spawner; journal: Journal; pausing: Pausing; requeued: string[]; handle(
    object?: KubeObject,
    deleting?: boolean,
  ): ReturnType<Spawner['handle']>; messages(): string[];
}) => Promise<void>): Promise<void> {
  const server = await startServer((_req, res) => sendJson(res, 200, FRESH));
  const client = clientOf(server);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, queueing: { exitTimeout: 0.1 } });
  const registry = new OperatorRegistry();
  const journal = new Journal();
  register(registry, journal);
  const requeued: string[] = [];
  const stop = new AbortController();
  const proc = processorOf(
    registry,
    { client, settings, logger, stopping: stop.signal, enqueue: (key: string, _event: RawEvent) => requeued.push(key) },
  );
  const pausing = new Pausing();
  const spawner = new Spawner(registry.resourceHandlers as SpawningHandler[], proc, pausing);
  const handle = (object: KubeObject = FRESH, deleting = false) => spawner.handle({
    key: 'u1',
    body: object,
    memo: {},
    deleting,
    ctx: { body: object } as FilterContext<KubeObject>,
    changed: () => true,
  });
  try {
    await body({ spawner, journal, pausing, requeued, handle, messages: () => capture.messages() });
  } finally {
    await spawner.stopAll();
    stop.abort();
    client.close();
    await server.close();
  }
}

/** Until the spawner's tasks have exited: a handler's end is followed by the task's own last steps. */
async function exitOf(spawner: Spawner): Promise<void> {
  while (spawner.size) await new Promise((resolve) => setImmediate(resolve));
}

/** A daemon that says when it starts, waits until stopped, and says why it stopped. */
function waiting(registry: OperatorRegistry, journal: Journal, options = {}): void {
  registry.on.daemon(KopfExample, async function waiter({ stopped }) {
    journal.add('started');
    await stopped.wait();
    journal.add(`stopped: ${stopped.reason satisfies StopReason | undefined}`);
  }, options);
}

test('Pausing stops every daemon with the reason "operator pausing", spawns none while paused, and respawns on ' +
  'resume', async () => {
  await withSpawner(waiting, async ({ spawner, journal, pausing, requeued, handle }) => {
    assert.deepEqual(handle(), { required: true, holding: false });
    await journal.until('started');
    await pausing.pause();
    assert.equal(pausing.paused, true);
    assert.deepEqual(journal.entries, ['started', 'stopped: operator pausing']);
    assert.equal(spawner.size, 0, 'the pause resolves once the daemon has exited');

    assert.deepEqual(handle(), { required: true, holding: false }, 'the finalizer is still needed while paused');
    assert.equal(spawner.size, 0, 'nothing is spawned while paused');

    pausing.resume();
    assert.deepEqual(requeued, ['u1'], 'resuming processes the object again');
    handle();
    await journal.until('started', 2);
    assert.equal(spawner.size, 1);
  });
});

test('a member that joins a paused Pausing is paused at once; resume() when not paused does nothing', async () => {
  const pausing = new Pausing();
  const calls: string[] = [];
  pausing.resume();
  await pausing.pause();
  pausing.join({ pause: async () => { calls.push('pause'); }, resume: () => calls.push('resume') });
  pausing.resume();
  assert.deepEqual(calls, ['pause', 'resume']);
});

test('a daemon that no longer matches is stopped with the reason "no longer matching", and spawned again when it ' +
  'matches', async () => {
  const labelled: KubeObject = { ...FRESH, metadata: { ...FRESH.metadata, labels: { run: 'yes' } } };
  await withSpawner((registry, journal) => waiting(registry, journal, { labels: { run: 'yes' } }), async (
    { journal, handle, spawner }
  ) => {
    assert.deepEqual(handle(labelled), { required: true, holding: false });
    await journal.until('started');
    assert.deepEqual(handle(FRESH), { required: false, holding: false });
    await journal.until('stopped: no longer matching');
    await exitOf(spawner);
    handle(labelled);
    await journal.until('started', 2);
  });
});

test('a deleted object holds its finalizer until its daemon has exited, and is processed again then', async () => {
  await withSpawner(waiting, async ({ journal, handle, requeued, spawner }) => {
    handle();
    await journal.until('started');
    const deleting: KubeObject = {
      ...FRESH,
      metadata: { ...FRESH.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    const verdict = handle(deleting, true);
    assert.equal(verdict.required, true);
    await journal.until('stopped: resource deleted');
    await exitOf(spawner);
    while (!requeued.length) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      handle(deleting, true),
      { required: true, holding: false },
      'nothing holds the finalizer any more',
    );
  });
});

test('a daemon that returns is not spawned again for its object', async () => {
  await withSpawner((registry, journal) => {
    registry.on.daemon(KopfExample, function once() { journal.add('ran'); });
  }, async ({ journal, handle, spawner, messages }) => {
    handle();
    await journal.until('ran');
    await exitOf(spawner);
    assert.deepEqual(handle(), { required: false, holding: false }, 'it no longer needs the finalizer');
    assert.equal(spawner.size, 0);
    assert.deepEqual(journal.entries, ['ran']);
    assert.ok(
      messages().includes("Daemon 'once' has exited on its own and will not be retried or restarted."),
      messages().join('\n'),
    );
  });
});

test('a daemon that ignores its stop is cancelled through its signal after cancellationTimeout… and abandoned if ' +
  'that fails', async () => {
  await withSpawner((registry, journal) => {
    registry.on.daemon(KopfExample, async function stubborn({ signal }) {
      journal.add('started');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      journal.add('cancelled');
      await new Promise(() => undefined); // and never ends
    }, { cancellationTimeout: 0.05 });
  }, async ({ journal, handle, spawner, messages }) => {
    handle();
    await journal.until('started');
    await spawner.stopAll();
    assert.deepEqual(journal.entries, ['started', 'cancelled']);
    assert.ok(messages().includes("Daemon 'stubborn' is signalled to exit by force."), messages().join('\n'));
    assert.ok(
      messages().includes("Daemon 'stubborn' did not exit in time. Leaving it orphaned."),
      messages().join('\n'),
    );
  });
});

test('stopped.wait() ends early with true when stopped, and with false when the time is up', async () => {
  const stopper = new Stopper();
  const early = stopper.signal; // taken before the stop, as `fetch(url, { signal })` would
  assert.equal(await stopper.wait(0.001), false);
  const waiting = stopper.wait(3600);
  assert.equal(stopper.stop('operator exiting'), true);
  assert.equal(stopper.stop('resource deleted'), false, 'the first reason stays');
  assert.equal(await waiting, true);
  assert.equal(stopper.reason, 'operator exiting');
  assert.equal(stopper.signal.aborted, true);
  assert.equal(early.aborted, true);
  assert.equal(await stopper.wait(3600), true, 'a wait after the stop ends at once');
});

test('timers and daemons register with their options; bad durations and old/new filters are refused', () => {
  const r = new OperatorRegistry();
  r.on.timer(KopfExample, function tick() {}, { interval: 2, idle: 5, sharp: true, initialDelay: 1 });
  r.on.daemon(
    KopfExample,
    async function watch() {},
    { cancellationBackoff: 1, cancellationTimeout: 0.5, field: 'spec.field' },
  );
  assert.deepEqual(r.resourceHandlers.map((h) => [h.kind, h.id]), [['timer', 'tick'], ['daemon', 'watch/spec.field']]);
  const [timer] = r.resourceHandlers;
  assert.ok(
    timer?.kind === 'timer' && timer.interval === 2 && timer.idle === 5 && timer.sharp && timer.initialDelay === 1
  );
  assert.throws(
    () => r.on.timer('kex', function bad() {}, { interval: -1 }),
    (e: Error) => e instanceof RegistrationError && /interval/.test(e.message),
  );
  assert.throws(() => r.on.timer('kex', function zero() {}, { interval: 0 }), /above 0/);
  assert.throws(() => r.on.daemon('kex', function odd() {}, { field: 'spec.field', old: 'a' } as never), /old/);
});

test('a sharp timer keeps to the grid of its interval however long its calls take; a plain one waits the ' +
  'interval', () => {
  assert.equal(intervalWait(10, true, 0.5), 9.5);
  assert.equal(intervalWait(10, true, 12), 8, 'a call longer than the interval waits for the next point after it');
  assert.equal(intervalWait(10, false, 0.5), 10);
  assert.equal(intervalWait(10, undefined, 12), 10);
});

/** A gate a handler waits at until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

test('a daemon and a timer that took spec, meta, labels, status and body out of their context see the object as it ' +
  'is now', async () => {
  const changed = gate();
  const seen: Record<string, unknown>[] = [];
  await withSpawner((registry, journal) => {
    const look = (kind: string) => async (
      { body, spec, meta, labels, annotations, status }: SpawningContext<KopfExample>
    ) => {
      journal.add(`${kind} started`);
      await changed.wait;
      seen.push({
        kind,
        field: spec.field,
        labels: { ...labels },
        annotations: Object.keys(annotations),
        generation: meta.generation,
        status: JSON.stringify(status), name: body.metadata?.name, bodyField: body.spec?.field,
      });
      journal.add(`${kind} saw`);
    };
    registry.on.daemon(KopfExample, look('daemon'), { id: 'daemon' });
    registry.on.timer(KopfExample, look('timer'), { id: 'timer', interval: 3600 });
  }, async ({ journal, handle }) => {
    handle();
    await journal.until('daemon started');
    await journal.until('timer started');
    handle(
      {
        ...FRESH,
        metadata: { ...FRESH.metadata, generation: 2, labels: { run: 'yes' } },
        spec: { field: 'new' },
        status: { a: 1 },
      }
    );
    changed.open();
    await journal.until('daemon saw');
    await journal.until('timer saw');
  });
  const now = {
    field: 'new',
    labels: { run: 'yes' },
    annotations: [],
    generation: 2,
    status: '{"a":1}',
    name: 'x',
    bodyField: 'new',
  };
  assert.deepEqual(
    seen.sort((a, b) => String(a.kind).localeCompare(String(b.kind))),
    [{ kind: 'daemon', ...now }, { kind: 'timer', ...now }],
  );
});

test('a timer waits as an entry of the due queue, leaves it at once when stopped there, and when stopped during a ' +
  'call exits after the call', { timeout: 30_000 }, async () => {
  const call = gate();
  await withSpawner((registry, journal) => {
    registry.on.timer(KopfExample, async function tick() {
      journal.add('called');
      if (journal.entries.length > 1) await call.wait;
      journal.add('returned');
    }, { interval: 3600 });
  }, async ({ journal, handle, pausing, spawner }) => {
    const before = timerQueue.size;
    handle();
    await journal.until('returned');
    while (timerQueue.size === before) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(timerQueue.size, before + 1, 'between its calls, the timer is one entry of the queue');
    await pausing.pause();
    assert.equal(spawner.size, 0, 'stopped while it waits, it has exited at once');
    assert.equal(timerQueue.size, before);

    pausing.resume();
    handle();
    await journal.until('called', 2);
    const paused = pausing.pause();
    assert.equal(timerQueue.size, before, 'during its call, it is not in the queue');
    call.open();
    await paused;
    assert.deepEqual(journal.entries, ['called', 'returned', 'called', 'returned'], 'the call ran to its end');
    assert.equal(spawner.size, 0);
    assert.equal(timerQueue.size, before);
  });
});

test('a timer\'s initial delay is a wait in the due queue: no call before it, and a stop during it ends the timer ' +
  'without one', async () => {
  await withSpawner((registry, journal) => {
    registry.on.timer(KopfExample, function late() { journal.add('late'); }, { interval: 3600, initialDelay: 3600 });
    registry.on.timer(KopfExample, function soon() { journal.add('soon'); }, { interval: 3600, initialDelay: 0.01 });
  }, async ({ journal, handle, pausing, spawner }) => {
    const before = timerQueue.size;
    handle();
    assert.equal(timerQueue.size, before + 2, 'both wait for their initial delays');
    await journal.until('soon');
    await pausing.pause();
    assert.equal(spawner.size, 0);
    assert.equal(timerQueue.size, before);
    assert.deepEqual(journal.entries, ['soon'], 'the long initial delay never ended in a call');
  });
});
