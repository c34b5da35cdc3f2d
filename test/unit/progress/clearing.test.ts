/**
 * Storages clear their own fields from every event's essence without copying it whole: the
 * original essence (shared with the cycle) must never change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AnnotationsProgressStorage,
  SmartProgressStorage,
  StatusProgressStorage,
  buildEssence,
  type Essence,
} from '../../../runtime/progress/index.ts';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

// As a storage of another prefix could leave it: the essence's builder drops Kopf's own annotations.
const essence = deepFreeze({
  metadata: { labels: { a: '1' }, annotations: { 'kopf.zalando.org/create_fn': '{}', other: 'x' } },
  spec: { field: 'v' },
  status: { kopf: { progress: { create_fn: {} } }, phase: 'Ready' },
}) as Essence;

test('clearing returns a new essence and leaves the original untouched (it is frozen here)', () => {
  const before = JSON.stringify(essence);
  for (const storage of [new AnnotationsProgressStorage(), new StatusProgressStorage(), new SmartProgressStorage()]) {
    const cleared = storage.clear(essence);
    assert.notEqual(cleared, essence);
    assert.equal(JSON.stringify(essence), before);
  }
  assert.deepEqual(new SmartProgressStorage().clear(essence), {
    spec: { field: 'v' }, metadata: { labels: { a: '1' }, annotations: { other: 'x' } }, status: { phase: 'Ready' },
  });
});

test('an essence with nothing of a storage in it is returned as it is, not copied', () => {
  const plain = deepFreeze(buildEssence({
    metadata: { labels: { a: '1' }, annotations: { 'kopf.zalando.org/create_fn': '{}', other: 'x' } },
    spec: { field: 'v' },
    status: { phase: 'Ready' },
  }, { extraFields: ['status.phase'] })) as Essence;
  for (const storage of [new AnnotationsProgressStorage(), new StatusProgressStorage(), new SmartProgressStorage()]) {
    assert.equal(storage.clear(plain), plain);
  }
  assert.deepEqual(plain, { spec: { field: 'v' }, metadata: { labels: { a: '1' }, annotations: { other: 'x' } },
    status: { phase: 'Ready' } });
});
