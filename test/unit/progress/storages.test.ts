import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnotationsProgressStorage } from '../../../runtime/progress/annotations.ts';
import type { ProgressRecord } from '../../../runtime/progress/records.ts';
import { MultiProgressStorage, SmartProgressStorage } from '../../../runtime/progress/smart.ts';
import { NoWriteStatusProgressStorage, StatusProgressStorage } from '../../../runtime/progress/status.ts';
import { storePurged, type ProgressStorage } from '../../../runtime/progress/storage.ts';
import { Patch, patchContent } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { kopfFixture } from './kopf-fixtures.ts';
import { recordingStorage } from './recording-storage.ts';

type Json = { [key: string]: unknown };
type StorageCase =
  | { storage: string; op: 'fetch'; key: string; body: string; result: ProgressRecord | null }
  | { storage: string; op: 'store' | 'purge'; key: string; body: string; patch: string; result: Json }
  | { storage: string; op: 'touch'; value: string | null; body: string; patch: string; result: Json }
  | { storage: string; op: 'clear'; essence: Json; result: Json };
interface StoragesFixture {
  record: ProgressRecord;
  bodies: Record<string, KubeObject>;
  pending: Record<string, Json>;
  cases: StorageCase[]
}
const fixture = kopfFixture<StoragesFixture>('storages.json');

const storages: Record<string, () => ProgressStorage> = {
  'annotations': () => new AnnotationsProgressStorage(),
  'annotations-v2only': () => new AnnotationsProgressStorage({ v1: false }),
  'annotations-custom': () => new AnnotationsProgressStorage({ prefix: 'my-op.example.com' }),
  'annotations-kopf-custom': () => new AnnotationsProgressStorage({ prefix: 'kopf.example.com' }),
  'annotations-verbose': () => new AnnotationsProgressStorage({ verbose: true }),
  'annotations-touch': () => new AnnotationsProgressStorage({ touchKey: 'my-touch' }),
  'status': () => new StatusProgressStorage(),
  'status-custom': () => new StatusProgressStorage(
    { name: 'op', field: 'status.{name}.state', touchField: 'status.{name}.poke' }
  ),
  'smart': () => new SmartProgressStorage(),
  'smart-custom': () => new SmartProgressStorage({ prefix: 'my-op.example.com', name: 'op' }),
};

test('progress storages fetch, store, purge, touch and clear as Kopf’s do', () => {
  assert.ok(fixture.cases.length > 1000);
  const ops = new Set<string>();
  for (const c of fixture.cases) {
    const storage = storages[c.storage]();
    const where = JSON.stringify({ ...c, result: undefined });
    ops.add(c.op);
    if (c.op === 'clear') {
      const essence = structuredClone(c.essence);
      assert.deepEqual(storage.clear(essence), c.result, where);
      assert.deepEqual(essence, c.essence, `${where}: the essence itself is not changed`);
      continue;
    }
    const body = structuredClone(fixture.bodies[c.body]);
    if (c.op === 'fetch') {
      assert.deepEqual(storage.fetch(c.key, body), c.result, where);
      continue;
    }
    const patch = new Patch(fixture.pending[c.patch]);
    if (c.op === 'touch') storage.touch(body, patch, c.value);
    else if (c.op === 'store') storage.store(c.key, { ...fixture.record }, body, patch);
    else storage.purge(c.key, body, patch);
    assert.deepEqual(patchContent(patch), c.result, where);
    assert.deepEqual(body, fixture.bodies[c.body], `${where}: the body is not changed`);
  }
  assert.deepEqual([...ops].sort(), ['clear', 'fetch', 'purge', 'store', 'touch']);
});

test('the annotation value is the exact text Kopf writes', () => {
  const patch = new Patch();
  new SmartProgressStorage().store('create_b', {
    started: '2026-11-22T03:18:01.949187+00:00',
    stopped: null,
    delayed: '2026-11-22T03:19:01.949187+00:00',
    purpose: 'create',
    retries: 1, success: false, failure: false, message: 'not yet', subrefs: null,
  }, {}, patch);
  assert.deepEqual(patchContent(patch), {
    metadata: {
      annotations: {
        'kopf.zalando.org/create_b': '{"started":"2026-11-22T03:18:01.949187+00:00",' +
          '"delayed":"2026-11-22T03:19:01.949187+00:00","purpose":"create","retries":1,"success":false,' +
            '"failure":false,"message":"not yet"}'
      }
    },
  });
});

test('the legacy status storage is read but never written by the smart storage', () => {
  const storage = new NoWriteStatusProgressStorage();
  const patch = new Patch();
  storage.store('fn', { retries: 1 }, {}, patch);
  storage.touch({}, patch, 'x');
  assert.deepEqual(patchContent(patch), {});
  assert.deepEqual(storage.fetch('fn', { status: { kopf: { progress: { fn: { retries: 2 } } } } }), { retries: 2 });
});

test('a multi-storage reads the first record found and writes everywhere', () => {
  const first = new AnnotationsProgressStorage({ prefix: 'one.kopf.dev' });
  const second = new StatusProgressStorage();
  const multi = new MultiProgressStorage([first, second]);
  const body = {
    metadata: { annotations: { 'one.kopf.dev/fn': '{"retries":1}' } },
    status: { kopf: { progress: { fn: { retries: 2 }, gn: { retries: 3 } } } },
  };
  assert.deepEqual(multi.fetch('fn', body), { retries: 1 });
  assert.deepEqual(multi.fetch('gn', body), { retries: 3 });
  assert.equal(multi.fetch('hn', body), null);
  const patch = new Patch();
  multi.store('fn', { retries: 4, message: null }, {}, patch);
  assert.deepEqual(patchContent(patch), {
    metadata: { annotations: { 'one.kopf.dev/fn': '{"retries":4}', 'one.kopf.dev/kopf-managed': 'yes' } },
    status: { kopf: { progress: { fn: { retries: 4, message: null } } } },
  });
  assert.deepEqual(
    multi.clear(
      { metadata: { annotations: { 'one.kopf.dev/fn': 'x' } }, status: { kopf: { progress: {} } }, spec: {} }
    ),
    { spec: {} },
  );
});

test('storages refuse an empty prefix', () => {
  assert.throws(() => new AnnotationsProgressStorage({ prefix: '' }), /prefixed/);
});

test('a record stored only to be purged leaves the patch as storing it, then purging it, does', () => {
  const purges = fixture.cases.filter((c): c is Extract<StorageCase, { op: 'store' | 'purge' }> => c.op === 'purge');
  assert.ok(purges.length > 50);
  for (const c of purges) {
    const body = fixture.bodies[c.body];
    const expected = new Patch(structuredClone(fixture.pending[c.patch]));
    const storage = storages[c.storage]();
    storage.store(c.key, { ...fixture.record }, body, expected);
    storage.purge(c.key, body, expected);
    const patch = new Patch(structuredClone(fixture.pending[c.patch]));
    const shortcut = storages[c.storage]();
    storePurged(shortcut, c.key, { ...fixture.record }, body, patch);
    shortcut.purge(c.key, body, patch);
    assert.deepEqual(patchContent(patch), patchContent(expected), JSON.stringify({ ...c, result: undefined }));
  }
});

test('a custom prefix’s marker stays when a record is stored only to be purged, as in Kopf', () => {
  const patch = new Patch();
  const storage = new SmartProgressStorage({ prefix: 'my-op.example.com' });
  storePurged(storage, 'fn', { ...fixture.record }, {}, patch);
  storage.purge('fn', {}, patch);
  assert.deepEqual(patchContent(patch), { metadata: { annotations: { 'my-op.example.com/kopf-managed': 'yes' } } });
});

test('a storage without the shortcut stores the record, also inside a multi-storage', () => {
  const { storage, calls } = recordingStorage();
  storePurged(storage, 'a', { ...fixture.record }, {}, new Patch());
  storePurged(new MultiProgressStorage([storage]), 'b', { ...fixture.record }, {}, new Patch());
  assert.deepEqual(calls, ['store a', 'store b']);
});
