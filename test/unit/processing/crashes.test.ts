/**
 * A process can die between any two requests of a cycle. Here it does, at each write in turn: a
 * fake API server stores the object as kube-apiserver would and refuses every write after the
 * n-th (the process is dead from then on); a new process then lists the object and works until
 * nothing more is written. Whatever the crash point and the storages, the outcome is the one
 * without a crash — every handler's result and patch on the object, no progress record left —
 * and the handlers that ran at most once more than they would have (at least once, never lost).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { SettingsOverrides } from '../../../runtime/config/settings.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import {
  AnnotationsProgressStorage, SmartProgressStorage, StatusDiffBaseStorage, StatusProgressStorage,
} from '../../../runtime/progress/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { applyMergePatch, type JsonPatchOp } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { clientOf, sendJson, startServer, status, type Received } from '../kube/fake-server.ts';
import { applyJsonPatch } from '../structs/json-patch.ts';
import { FRESH, processorOf } from './processor.ts';

type Json = { [key: string]: unknown };

const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';
const FINALIZER = 'kopf.zalando.org/KopfFinalizerMarker';

/** One KopfExample as kube-apiserver keeps it (with a status subresource), and a process that dies at a write. */
class FakeApi {
  object: Json | undefined;
  /** The writes that reached the object, in order: `object` or `status`, and the patch's type. */
  readonly writes: string[] = [];
  /** How many writes get through before the process is dead (and the rest are refused). */
  limit = Infinity;
  refused = 0;
  /** What the handlers had done when the object lost our finalizer. */
  releasedAfter: string[] | undefined;
  private version = 1;
  private readonly done: string[];

  constructor(object: KubeObject, done: string[]) {
    this.object = copyJson(object) as Json;
    this.done = done;
  }

  handle(req: Received, res: ServerResponse): void {
    if (req.method !== 'PATCH') return sendJson(res, 405, status(405, 'MethodNotAllowed', req.method));
    if (this.writes.length >= this.limit) {
      this.refused++;
      return sendJson(res, 503, status(503, 'ServiceUnavailable', 'the process is dead'));
    }
    if (!this.object) return sendJson(res, 404, status(404, 'NotFound', 'gone'));
    const endpoint = req.path.endsWith('/status') ? 'status' : 'object';
    const patch = JSON.parse(req.body) as unknown;
    if (req.headers['content-type'] === 'application/merge-patch+json') {
      const { status: statusPart, ...rest } = patch as Json;
      applyMergePatch(this.object, endpoint === 'status' ? { status: statusPart } : rest);
    } else {
      try {
        this.object = applyJsonPatch(this.object, patch as JsonPatchOp[]) as Json;
      } catch (error) {
        return sendJson(res, 422, status(422, 'Invalid', String(error)));
      }
    }
    this.writes.push(
      `${endpoint}:${req.headers['content-type'] === 'application/merge-patch+json' ? 'merge' : 'json'}`
    );
    applyMergePatch(this.object, { metadata: { resourceVersion: String(++this.version) } });
    const answer = copyJson(this.object);
    const meta = this.object.metadata as KubeObject['metadata'];
    if (meta?.deletionTimestamp && !meta.finalizers?.length) {
      this.releasedAfter = [...this.done];
      this.object = undefined;
    }
    sendJson(res, 200, answer);
  }
}

/**
 * One life of an operator process: from the object's listing on, one cycle per event (each write
 * brings the next event), until a cycle writes nothing, the object is gone, or the process dies.
 */
async function live(
  api: FakeApi,
  register: (registry: OperatorRegistry) => void,
  persistence: SettingsOverrides['persistence'],
): Promise<void> {
  const registry = new OperatorRegistry();
  register(registry);
  const server = await startServer((req, res) => api.handle(req, res));
  const client = clientOf(server, { errorBackoffs: [] });
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [] }));
  const settings = defaultSettings(
    { posting: { enabled: false }, persistence: { consistencyTimeout: 0, ...persistence } }
  );
  const stop = new AbortController();
  const proc = processorOf(registry, { client, settings, logger, stopping: stop.signal });
  try {
    let type: RawEvent['type'] = null;
    for (let cycle = 0; cycle < 20 && api.object && !api.refused; cycle++) {
      const before = api.writes.length;
      await processEvent(
        proc,
        'u1',
        { kind: 'event', type, object: copyJson(api.object) as KubeObject },
        new AbortController().signal,
      );
      if (api.writes.length === before) return;
      type = 'MODIFIED';
    }
    assert.ok(!api.object || api.refused, 'the object settles within 20 cycles');
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}

/** The storages a crash must be safe with: Kopf's default, and each of the others alone. */
const STORAGES: { name: string; persistence: () => SettingsOverrides['persistence'] }[] = [
  { name: 'smart (default)', persistence: () => ({ progressStorage: new SmartProgressStorage() }) },
  { name: 'annotations', persistence: () => ({ progressStorage: new AnnotationsProgressStorage() }) },
  { name: 'status', persistence: () => ({ progressStorage: new StatusProgressStorage() }) },
  {
    name: 'status, diff-base in status',
    persistence: () => ({ progressStorage: new StatusProgressStorage(), diffbaseStorage: new StatusDiffBaseStorage() }),
  },
];

interface Scenario {
  /** Brings the object to the state before the cycles under test (without crashes). */
  prepare?: (api: FakeApi, persistence: SettingsOverrides['persistence']) => Promise<void>;
  register: (registry: OperatorRegistry, calls: string[], done: string[]) => void;
  /** What must hold once the restarted process is done. */
  check: (api: FakeApi, label: string) => void;
}

/**
 * Runs the scenario without a crash to count its writes, then once per write with the process
 * dying right before it and a new one started after; returns the handler calls of each run.
 */
async function crashAtEveryWrite(scenario: Scenario, storage: typeof STORAGES[number]): Promise<{
  writes: string[];
  calls: string[][]
}> {
  const runs: string[][] = [];
  let writes: string[] = [];
  // Crash 0 is the run without a crash; crash n dies right before the n-th write of it.
  for (let crash = 0; crash <= writes.length; crash++) {
    const calls: string[] = [];
    const done: string[] = [];
    const api = new FakeApi(FRESH, done);
    await scenario.prepare?.(api, storage.persistence());
    const before = api.writes.length;
    const register = (registry: OperatorRegistry) => scenario.register(registry, calls, done);
    api.limit = crash === 0 ? Infinity : before + crash - 1;
    await live(api, register, storage.persistence());
    const label = crash === 0 ? `${storage.name}, no crash`
      : `${storage.name}, a crash before write ${crash} of ${writes.join(', ')}`;
    if (crash === 0) {
      writes = api.writes.slice(before);
    } else {
      assert.equal(api.refused > 0, true, `${label}: the process died`);
      api.limit = Infinity;
      api.refused = 0;
      await live(api, register, storage.persistence());
    }
    scenario.check(api, label);
    runs.push(calls);
  }
  return { writes, calls: runs };
}

function annotationsOf(api: FakeApi): Json {
  return ((api.object?.metadata as Json | undefined)?.annotations ?? {}) as Json;
}

function statusOf(api: FakeApi): Json {
  return (api.object?.status ?? {}) as Json;
}

/** No progress record of any handler is left, in annotations or in the status. */
function assertNoRecords(api: FakeApi, label: string): void {
  const records = Object.keys(annotationsOf(api)).filter(
    (key) => key.startsWith('kopf.zalando.org/') && key !== DIFF_BASE
  );
  assert.deepEqual(records, [], `${label}: no progress annotations left`);
  assert.deepEqual(
    Object.keys(((statusOf(api).kopf as Json | undefined)?.progress ?? {}) as Json),
    [],
    `${label}: no progress in the status left`,
  );
}

function diffBaseOf(api: FakeApi): Json | undefined {
  const text = annotationsOf(api)[DIFF_BASE] ?? (statusOf(api).kopf as Json | undefined)?.[
    'last-handled-configuration'
  ];
  return typeof text === 'string' ? JSON.parse(text) as Json : undefined;
}

test('a process that dies between the result and the records of a success runs the handler again, and the result ' +
  'arrives', async () => {
  const calls: string[] = [];
  const register = (registry: OperatorRegistry) => {
    registry.on.create(KopfExample, function create_fn() { calls.push('create_fn'); return { answer: 42 }; });
  };
  const api = new FakeApi(FRESH, []);
  api.limit = 1;
  await live(api, register, {});
  assert.deepEqual(api.writes, ['status:merge'], 'the result is written first');
  assert.equal(diffBaseOf(api), undefined, 'the diff-base is not written before the result');
  api.limit = Infinity;
  api.refused = 0;
  await live(api, register, {});
  assert.deepEqual(calls, ['create_fn', 'create_fn'], 'the restarted process runs the handler again');
  assert.deepEqual(statusOf(api).create_fn, { answer: 42 });
  assert.deepEqual(diffBaseOf(api), { spec: { field: 'v' } });
});

const CREATION: Scenario = {
  register: (registry, calls, done) => {
    registry.on.create(KopfExample, function create_a({ patch }) {
      calls.push('create_a');
      patch.metadata.labels.patched = 'yes';
      patch.fns.push(
        (body) => { body.metadata ??= {}; body.metadata.labels = { ...body.metadata.labels, transformed: 'yes' }; }
      );
      done.push('create_a');
      return { a: 1 };
    });
    registry.on.create(
      KopfExample,
      function create_b() { calls.push('create_b'); done.push('create_b'); return { b: 2 }; },
    );
  },
  check: (api, label) => {
    assert.deepEqual(statusOf(api).create_a, { a: 1 }, `${label}: the first handler's result`);
    assert.deepEqual(statusOf(api).create_b, { b: 2 }, `${label}: the second handler's result`);
    const labels = (api.object?.metadata as Json).labels as Json | undefined;
    assert.deepEqual(
      labels,
      { patched: 'yes', transformed: 'yes' },
      `${label}: the first handler's patch and transformation`,
    );
    assert.deepEqual(
      diffBaseOf(api),
      { metadata: { labels: { patched: 'yes', transformed: 'yes' } }, spec: { field: 'v' } },
      `${label}: the diff-base`,
    );
    assertNoRecords(api, label);
  },
};

for (const storage of STORAGES) {
  test(`a crash at any write of a creation loses nothing, with ${storage.name} storage`, async () => {
    const { writes, calls } = await crashAtEveryWrite(CREATION, storage);
    assert.ok(writes.length >= 3, `several writes to crash between: ${writes.join(', ')}`);
    assert.deepEqual(calls[0], ['create_a', 'create_b'], 'without a crash, each handler runs once');
    for (const [crash, run] of calls.entries()) {
      for (const id of ['create_a', 'create_b']) {
        const count = run.filter((c) => c === id).length;
        assert.ok(count >= 1 && count <= 2, `crash before write ${crash}: ${id} ran ${count} times`);
      }
    }
    assert.ok(calls.some((run) => run.length > 2), 'some crash points make a handler run again');
  });
}

const UPDATE: Scenario = {
  prepare: async (api, persistence) => {
    await live(
      api,
      (registry) => { registry.on.update(KopfExample, () => undefined, { id: 'update_fn' }); },
      persistence,
    );
    applyMergePatch(api.object!, { spec: { field: 'w' }, metadata: { generation: 2 } });
  },
  register: (registry, calls) => {
    registry.on.update(
      KopfExample,
      function update_fn({ new: neu }) { calls.push('update_fn'); return { seen: (neu as Json).spec }; },
    );
    registry.on.update(KopfExample, function update_more() { calls.push('update_more'); return 'more'; });
  },
  check: (api, label) => {
    assert.deepEqual(statusOf(api).update_fn, { seen: { field: 'w' } }, `${label}: the result`);
    assert.equal(statusOf(api).update_more, 'more', `${label}: the second result`);
    assert.deepEqual(diffBaseOf(api), { spec: { field: 'w' } }, `${label}: the new diff-base`);
    assertNoRecords(api, label);
  },
};

for (const storage of STORAGES) {
  test(`a crash at any write of an update loses nothing, with ${storage.name} storage`, async () => {
    const { writes, calls } = await crashAtEveryWrite(UPDATE, storage);
    assert.ok(writes.length >= 2, writes.join(', '));
    assert.deepEqual(calls[0], ['update_fn', 'update_more']);
    assert.ok(calls.every((run) => run.includes('update_fn') && run.includes('update_more')));
  });
}

const DELETION: Scenario = {
  prepare: async (api, persistence) => {
    await live(
      api,
      (registry) => { registry.on.delete(KopfExample, () => undefined, { id: 'delete_a' }); },
      persistence,
    );
    assert.deepEqual((api.object?.metadata as Json).finalizers, [FINALIZER]);
    applyMergePatch(api.object!, { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } });
  },
  register: (registry, calls, done) => {
    registry.on.delete(KopfExample, function delete_a() { calls.push('delete_a'); done.push('delete_a'); return 'a'; });
    registry.on.delete(KopfExample, function delete_b() { calls.push('delete_b'); done.push('delete_b'); return 'b'; });
  },
  check: (api, label) => {
    assert.equal(api.object, undefined, `${label}: the object is gone`);
    assert.ok(
      api.releasedAfter?.includes('delete_a') && api.releasedAfter.includes('delete_b'),
      `${label}: both delete handlers were done before the finalizer went`,
    );
  },
};

for (const storage of STORAGES) {
  test(`a crash at any write of a deletion lets the object go only after its delete handlers, with ${storage.name} ` +
    `storage`, async () => {
    const { writes, calls } = await crashAtEveryWrite(DELETION, storage);
    assert.equal(writes.at(-1), 'object:json', 'the finalizer goes last');
    assert.deepEqual(calls[0], ['delete_a', 'delete_b']);
  });
}

test('the fake API refuses a stale guarded JSON patch, as kube-apiserver does', async () => {
  const api = new FakeApi(FRESH, []);
  const res = {
    writeHead: () => res,
    end: (text: string) => { (res as unknown as Json).text = text; },
  } as unknown as ServerResponse;
  api.handle(
    {
      method: 'PATCH',
      path: '/x',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'test', path: '/metadata/resourceVersion', value: '0' }]),
      at: 0,
    },
    res,
  );
  assert.match((res as unknown as Json).text as string, /"code":422/);
  assert.deepEqual(api.writes, []);
});
