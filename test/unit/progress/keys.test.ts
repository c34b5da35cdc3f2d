import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashSuffix, markKey, safeKey, storageKeys, v1Key, v2Key } from '../../../runtime/progress/keys.ts';
import { markedPrefixes, storeMarker } from '../../../runtime/progress/managed-prefixes.ts';
import { Patch, patchContent } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { kopfFixture } from './kopf-fixtures.ts';

interface KeyCase {
  prefix: string;
  key: string;
  v1: boolean;
  body: KubeObject | null;
  keys: string[];
  safeKey: string;
  v1Key: string;
  v2Key: string;
  suffix: string
}
const cases = kopfFixture<KeyCase[]>('keys.json');

test('annotation keys are Kopf’s: safe keys, hash suffixes, V1 and V2, -ofDRS', () => {
  assert.ok(cases.length > 100);
  for (const c of cases) {
    const where = `${c.prefix} / ${c.key} (v1=${c.v1})`;
    assert.equal(safeKey(c.key), c.safeKey, where);
    assert.equal(hashSuffix(c.key), c.suffix, where);
    assert.equal(v1Key(c.prefix, c.key), c.v1Key, where);
    assert.equal(v2Key(c.prefix, c.key), c.v2Key, where);
    assert.deepEqual(storageKeys(c.prefix, c.key, { v1: c.v1, body: c.body }), c.keys, where);
  }
});

test('the known examples of the reference', () => {
  assert.equal(hashSuffix('x'.repeat(64)), '-SItAqA');
  assert.equal(v2Key('kopf.zalando.org', 'x'.repeat(64)), `kopf.zalando.org/${'x'.repeat(56)}-SItAqA`);
  assert.equal(safeKey('create_c/a'), 'create_c.a');
  assert.equal(safeKey('field_fn/spec.field'), 'field_fn.spec.field');
  assert.deepEqual(storageKeys('kopf.zalando.org', 'create_fn'), ['kopf.zalando.org/create_fn']);
  // Lengths count code points, as in Python: 40 emoji fit into 63 characters.
  assert.equal(v2Key('p', '🎉'.repeat(40)), `p/${'🎉'.repeat(40)}`);
});

test('only ReplicaSets owned by Deployments get the -ofDRS mark', () => {
  const owned = (kind: string, ownerKind: string) => (
    { kind, metadata: { ownerReferences: [{ kind: ownerKind, apiVersion: 'apps/v1', name: 'd', uid: 'u' }] } }
  );
  assert.equal(markKey('fn', owned('ReplicaSet', 'Deployment')), 'fn-ofDRS');
  assert.equal(markKey('fn', owned('ReplicaSet', 'StatefulSet')), 'fn');
  assert.equal(markKey('fn', owned('Pod', 'Deployment')), 'fn');
  assert.equal(markKey('fn', null), 'fn');
});

test('Kopf-managed prefixes are recognised by name or by their marker', () => {
  const prefixes = markedPrefixes([
    'kopf.zalando.org/fn', 'other.kopf.zalando.org/x', 'my-op.example.com/kopf-managed', 'my-op.example.com/fn',
    'kopf.example.com/fn', 'plain', 'example.com/kopf.zalando.org', 'xkopf.zalando.org/y',
  ]);
  assert.deepEqual([...prefixes].sort(), ['kopf.zalando.org', 'my-op.example.com', 'other.kopf.zalando.org']);
});

test('the marker is stored for non-kopf prefixes, once', () => {
  const patch = new Patch();
  storeMarker('kopf.example.com', patch, {});
  assert.deepEqual(patchContent(patch), {});
  storeMarker('my-op.example.com', patch, { metadata: { annotations: { 'my-op.example.com/kopf-managed': 'yes' } } });
  assert.deepEqual(patchContent(patch), {});
  storeMarker('my-op.example.com', patch, {});
  assert.deepEqual(patchContent(patch), { metadata: { annotations: { 'my-op.example.com/kopf-managed': 'yes' } } });
  storeMarker('kopfish.example.com', patch, {});
  assert.equal(patch.metadata.annotations['kopfish.example.com/kopf-managed'], 'yes');
});
