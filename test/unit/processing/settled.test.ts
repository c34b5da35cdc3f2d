/**
 * An object listed at a restart whose stored state says all is done needs no cycle
 * (`settledOnSight`): the judgement is `decide`'s, so that every object it lets pass would have
 * been processed with no write and no handler run, and every other one still goes the whole way:
 * a changed spec, a pending retry, a missing finalizer, a deletion, resume handlers, event
 * handlers, index functions, timers and daemons, a reconciler, filters that see the change, an
 * object remembered from an earlier event, a watch event, a stored state that cannot be read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type { ResourceProcessor } from '../../../runtime/processing/processor.ts';
import type { ObjectReconciling, ObjectSpawning, EventIndexing } from '../../../runtime/actions/engines.ts';
import type { EventHandler } from '../../../runtime/registry/handlers.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { settledOnSight, type Settled } from '../../../runtime/processing/deciding.ts';
import { Patch, patchContent, applyMergePatch, type Fields } from '../../../runtime/structs/patches.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { FRESH, processOnce, processorOf } from './processor.ts';

const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
const PROGRESS = 'kopf.zalando.org/create_fn';

/** FRESH as a finished cycle leaves it: our finalizer, and the diff-base of its essence now. */
function handled(body: KubeObject = FRESH): KubeObject {
  const object = copyJson(body) as Fields;
  applyMergePatch(object, { metadata: { finalizers: [settings.persistence.finalizer] } });
  const storage = settings.persistence.diffbaseStorage;
  const patch = new Patch<KubeObject>({}, { body: object as KubeObject });
  storage.store(object as KubeObject, patch, storage.build(object as KubeObject));
  applyMergePatch(object, patchContent(patch));
  return object as KubeObject;
}

/** The object with these metadata fields merged in. */
function withMeta(body: KubeObject, metadata: Fields): KubeObject {
  const object = copyJson(body) as Fields;
  applyMergePatch(object, { metadata });
  return object as KubeObject;
}

const listed = (object: KubeObject): RawEvent => ({ kind: 'event', type: null, object });

type Register = (registry: OperatorRegistry, calls: string[]) => void;

/** The burst benchmark's operator: a creation handler, a deletion handler (so the finalizer is needed). */
const createAndDelete: Register = (registry, calls) => {
  registry.on.create(KopfExample, function create_fn() { calls.push('create'); return { ok: 1 }; });
  registry.on.delete(KopfExample, function delete_fn() { calls.push('delete'); });
};

/**
 * The judgement, and what the whole processing of the same listed event does: the requests it
 * sends, the handlers it runs.
 */
async function judgeAndProcess(
  register: Register, body: KubeObject, extend: (proc: ResourceProcessor) => ResourceProcessor = (proc) => proc,
): Promise<{ settled: Settled | undefined; requests: number; calls: string[] }> {
  const server = await startServer((req, res) => sendJson(res, 200, { ...body, metadata: { ...body.metadata } }));
  const client = clientOf(server);
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  register(registry, calls);
  const stop = new AbortController();
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }));
  const proc = extend(processorOf(registry, { client, settings, logger, stopping: stop.signal }));
  try {
    const settled = settledOnSight(proc, 'u1', listed(body));
    await processEvent(proc, 'u1', listed(body), new AbortController().signal);
    return { settled, requests: server.received.length, calls };
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}

test('a handled object needs nothing: settled, and the whole processing writes nothing and runs nothing', async () => {
  const outcome = await judgeAndProcess(createAndDelete, handled());
  assert.deepEqual(outcome, { settled: 'resumed', requests: 0, calls: [] });
});

test('an object that nothing applies to (stealth, no finalizer) is settled; with our finalizer it is not', async () => {
  const elsewhere: Register = (registry, calls) => {
    registry.on.delete(KopfExample, function delete_fn() { calls.push('delete'); }, { labels: { app: 'other' } });
  };
  const stealth = withMeta(FRESH, { labels: { app: 'mine' } });
  assert.deepEqual(await judgeAndProcess(elsewhere, stealth), { settled: 'stealth', requests: 0, calls: [] });
  const held = withMeta(stealth, { finalizers: [settings.persistence.finalizer] });
  const outcome = await judgeAndProcess(elsewhere, held);
  assert.equal(outcome.settled, undefined);
  assert.equal(outcome.requests, 1, 'the finalizer no longer needed is removed');
});

test('a changed spec, a missing finalizer, a deletion go the whole way, which writes', async () => {
  const changed = copyJson(handled()) as Fields;
  (changed.spec as Fields).field = 'changed';
  const unfinalized = withMeta(handled(), { finalizers: null });
  const deleted = withMeta(handled(), { deletionTimestamp: '2026-11-28T00:00:00Z' });
  for (const [what, body] of [['changed', changed], ['unfinalized', unfinalized], ['deleted', deleted]] as const) {
    const outcome = await judgeAndProcess(createAndDelete, body as KubeObject);
    assert.equal(outcome.settled, undefined, what);
    assert.ok(outcome.requests > 0, `${what}: the processing writes`);
  }
});

test('a pending retry (a progress record) goes the whole way', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { throw new TemporaryError('not yet', { delay: 60 }); });
  }, FRESH);
  const record = patches
    .map((patch) => (patch as { metadata?: { annotations?: Fields } }).metadata?.annotations?.[PROGRESS])
    .find((value) => value !== undefined);
  assert.ok(record, 'a progress record was written');
  const pending = withMeta(handled(), { annotations: { [PROGRESS]: record } });
  const outcome = await judgeAndProcess(createAndDelete, pending);
  assert.equal(outcome.settled, undefined);
  assert.ok(outcome.requests > 0, 'the stale record is superseded');
});

test('resume handlers run at a restart: not settled', async () => {
  const resuming: Register = (registry, calls) => {
    createAndDelete(registry, calls);
    registry.on.resume(KopfExample, function resume_fn() { calls.push('resume'); });
  };
  const outcome = await judgeAndProcess(resuming, handled());
  assert.equal(outcome.settled, undefined);
  assert.deepEqual(outcome.calls, ['resume']);
});

test('filters that see the change go the whole way, where they are called', async () => {
  let seen = 0;
  const filtered: Register = (registry, calls) => {
    registry.on.create(KopfExample, function create_fn() { calls.push('create'); });
    registry.on.delete(KopfExample, function delete_fn() { calls.push('delete'); }, { when: () => ++seen > 0 });
  };
  const outcome = await judgeAndProcess(filtered, handled());
  assert.equal(outcome.settled, undefined);
  assert.ok(seen > 0, 'the filter was called by the processing');
});

test('event handlers, index functions, timers and daemons, a reconciler: not settled', async () => {
  const engines: Record<string, (proc: ResourceProcessor) => ResourceProcessor> = {
    'event handlers': (proc) => ({ ...proc, watching: [{ kind: 'event' } as EventHandler] }),
    'index functions': (proc) => ({ ...proc, indexing: {} as EventIndexing }),
    'timers and daemons': (proc) => ({ ...proc, spawner: {} as ObjectSpawning }),
    'a reconciler': (proc) => ({ ...proc, reconciling: {} as ObjectReconciling }),
  };
  const registry = new OperatorRegistry();
  createAndDelete(registry, []);
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }));
  const stopping = new AbortController().signal;
  const base = processorOf(registry, { client: undefined as never, settings, logger, stopping });
  assert.equal(settledOnSight(base, 'u1', listed(handled())), 'resumed');
  for (const [what, extend] of Object.entries(engines)) {
    assert.equal(settledOnSight(extend(base), 'u1', listed(handled())), undefined, what);
  }
});

test('an object remembered from an earlier event, a watch event, an unreadable diff-base: not settled', async () => {
  const registry = new OperatorRegistry();
  createAndDelete(registry, []);
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }));
  const stopping = new AbortController().signal;
  const proc = processorOf(registry, { client: undefined as never, settings, logger, stopping });
  const body = handled();
  proc.memories.recall('u1', true);
  assert.equal(settledOnSight(proc, 'u1', listed(body)), undefined, 'remembered');
  proc.memories.forget('u1');
  assert.equal(settledOnSight(proc, 'u1', { kind: 'event', type: 'MODIFIED', object: body }), undefined, 'watched');
  const garbled = withMeta(body, { annotations: { 'kopf.zalando.org/last-handled-configuration': '{not json' } });
  assert.equal(settledOnSight(proc, 'u1', listed(garbled)), undefined, 'unreadable');
  assert.equal(settledOnSight(proc, 'u1', listed(body)), 'resumed', 'the same object, listed, unremembered');
});
