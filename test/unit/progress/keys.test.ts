import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hashSuffix, isValidKey, markKey, safeKey, storageKeys, v1Key, v2Key, validKey,
} from '../../../runtime/progress/keys.ts';
import { AnnotationsProgressStorage } from '../../../runtime/progress/annotations.ts';
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
  let refused = 0;
  for (const c of cases) {
    const where = `${c.prefix} / ${c.key} (v1=${c.v1})`;
    assert.equal(safeKey(c.key), c.safeKey, where);
    assert.equal(hashSuffix(c.key), c.suffix, where);
    assert.equal(v1Key(c.prefix, c.key), c.v1Key, where);
    assert.equal(v2Key(c.prefix, c.key), c.v2Key, where);
    const keys = storageKeys(c.prefix, c.key, { v1: c.v1, body: c.body });
    // Where the API server would refuse Kopf's key (Kopf itself could never store it), our own one.
    if (isValidKey(c.prefix, c.v2Key)) {
      assert.deepEqual(keys, c.keys, where);
    } else {
      assert.deepEqual(keys, [validKey(c.prefix, markKey(c.key, c.body))], where);
      refused++;
    }
  }
  assert.ok(refused > 0 && refused < cases.length / 2, `${refused} of Kopf's keys are refused`);
});

test('an id whose Kopf key the API server refuses is stored under one valid key of its own', () => {
  const prefix = 'kopf.zalando.org';
  const ids = [
    'create_items/é\u202e', 'create_items/line\nbreak', 'create_items/é\u202e'.padEnd(300, 'é'), '_private_fn',
    'create_items/trailing.', 'create_items/a b', 'create_items/'.padEnd(100, '\u0000'), '🎉',
  ];
  const keys = ids.map((id) => storageKeys(prefix, id));
  for (const [i, each] of keys.entries()) {
    assert.equal(each.length, 1, ids[i]);
    assert.ok(isValidKey(prefix, each[0]!), `${JSON.stringify(ids[i])} → ${each[0]}`);
  }
  assert.equal(new Set(keys.map((each) => each[0])).size, ids.length, 'each id its own key');
  assert.equal(keys[0]![0], `${prefix}/create_items.__${hashSuffix('create_items/é\u202e')}`);
  assert.equal(keys[3]![0], `${prefix}/private_fn${hashSuffix('_private_fn')}`, 'no leading underscore');
  // Ids Kopf can store keep Kopf's keys, the long ones hashed as Kopf hashes them.
  assert.deepEqual(storageKeys(prefix, 'create_items/item-1'), [`${prefix}/create_items.item-1`]);
  const long = `create_items/${'x'.repeat(80)}`;
  assert.deepEqual(storageKeys(prefix, long), [v2Key(prefix, long), v1Key(prefix, long)]);
  // The storage reads what it wrote under that key.
  const storage = new AnnotationsProgressStorage();
  const record = { started: '2020-01-01T00:00:00.000000', retries: 1, success: true };
  const body = { metadata: { annotations: { [keys[1]![0]!]: JSON.stringify(record) } } };
  assert.deepEqual(storage.fetch(ids[1]!, body), record);
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
