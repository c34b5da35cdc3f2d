import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AnnotationsDiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
} from '../../../runtime/progress/diffbase.ts';
import { buildEssence, type Essence } from '../../../runtime/progress/essence.ts';
import { SmartProgressStorage } from '../../../runtime/progress/smart.ts';
import type { DiffBaseStorage } from '../../../runtime/progress/storage.ts';
import { Patch, patchContent } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { kopfFixture } from './kopf-fixtures.ts';

type Json = { [key: string]: unknown };
interface EssenceCase {
  config: string; body: string; extra: (string | string[])[] | null; progress: 'smart' | 'custom';
  essence: Essence; cleared: Essence; stored: Json; fetched: Essence | null;
}
interface EssenceFixture { bodies: Record<string, KubeObject>; cases: EssenceCase[] }
const fixture = kopfFixture<EssenceFixture>('essence.json');

const configs: Record<string, () => DiffBaseStorage> = {
  default: () => new AnnotationsDiffBaseStorage(),
  extra: () => new AnnotationsDiffBaseStorage(),
  ignored: () => new AnnotationsDiffBaseStorage(
    { ignoredFields: ['spec.ignored', 'metadata.labels', 'spec.keep.ignored.deeper', ['spec', 'zzz']] }
  ),
  v2only: () => new AnnotationsDiffBaseStorage({ v1: false }),
  custom: () => new AnnotationsDiffBaseStorage({ prefix: 'my-op.example.com', key: 'last-handled-configuration' }),
  status: () => new StatusDiffBaseStorage(),
  multi: () => new MultiDiffBaseStorage([new AnnotationsDiffBaseStorage(), new StatusDiffBaseStorage()]),
};
const progressStorages = {
  smart: () => new SmartProgressStorage(),
  custom: () => new SmartProgressStorage({ prefix: 'my-op.example.com' }),
};

test('essences, their cleaning, and the stored diff-base text are Kopf’s', () => {
  assert.ok(fixture.cases.length > 80);
  for (const c of fixture.cases) {
    const where = `${c.config} / ${c.body}`;
    const storage = configs[c.config]();
    const body = structuredClone(fixture.bodies[c.body]);
    const essence = storage.build(body, c.extra);
    assert.deepEqual(essence, c.essence, where);
    const cleared = progressStorages[c.progress]().clear(essence);
    assert.deepEqual(cleared, c.cleared, where);
    const patch = new Patch();
    storage.store(body, patch, cleared);
    // Strings compare byte for byte: key order and escaping of the stored JSON included.
    assert.deepEqual(patchContent(patch), c.stored, where);
    assert.deepEqual(storage.fetch(body), c.fetched, where);
    assert.deepEqual(body, fixture.bodies[c.body], `${where}: the body is not changed`);
  }
});

test('the reference example: compact JSON and a newline', () => {
  const body = {
    apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
    metadata: { name: 'x', labels: { l: 'v' }, annotations: { 'kopf.zalando.org/create_fn': '{}' } },
    spec: { field: 'value', items: ['a', 'b'] }, status: { create_fn: { message: 'hi' } },
  };
  const storage = new AnnotationsDiffBaseStorage();
  const patch = new Patch();
  storage.store(body, patch, storage.build(body));
  assert.equal(patch.metadata.annotations['kopf.zalando.org/last-handled-configuration'],
    '{"spec":{"field":"value","items":["a","b"]},"metadata":{"labels":{"l":"v"}}}\n');
});

test('extra fields come back after metadata, ignored fields go, the body is not touched', () => {
  const body = {
    status: { phase: 'Running', other: 1 },
    spec: { a: 1, skip: 2 },
    metadata: { labels: { x: 'y' }, name: 'n' },
  };
  const essence = buildEssence(body, { extraFields: ['status.phase'], ignoredFields: ['spec.skip'] });
  assert.deepEqual(Object.keys(essence), ['spec', 'metadata', 'status']);
  assert.deepEqual(essence, { spec: { a: 1 }, metadata: { labels: { x: 'y' } }, status: { phase: 'Running' } });
  assert.deepEqual(body.spec, { a: 1, skip: 2 });
});

test('a top-level `__proto__` key of a body is data in its essence', () => {
  const body = JSON.parse(
    '{"apiVersion":"v1","kind":"X","metadata":{"name":"n"},"__proto__":{"spec":"not inherited"},"spec":{"a":1}}'
  ) as KubeObject;
  const essence = buildEssence(body);
  assert.equal(Object.getPrototypeOf(essence), Object.prototype);
  assert.deepEqual(Object.keys(essence), ['__proto__', 'spec']);
  assert.equal(JSON.stringify(essence), '{"__proto__":{"spec":"not inherited"},"spec":{"a":1}}');
});
