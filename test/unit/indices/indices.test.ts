/**
 * Kopf's Index and Store semantics: keys to stores, one value per object in each store; values
 * replaced per object, keys an object no longer gives dropped, empty stores gone; keys compared by
 * value (tuples too); a plain object or a Map is a mapping of keys, anything else one value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MutableIndex, indexEntries, type Index, type IndexKey } from '../../../runtime/indices/indices.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { IndexReadiness } from '../../../runtime/indices/index-readiness.ts';

/** The index as plain data: key → sorted values. */
function dump<K, V>(index: Index<K, V>): Array<[K, V[]]> {
  return [...index].map(([key, store]) => [key, [...store].sort()] as [K, V[]]);
}

test('an object\'s values are replaced on each call, and keys it no longer gives are dropped', () => {
  const index = new MutableIndex<string, number>();
  index.replace('pod-a', [['x', 1], ['y', 2]]);
  index.replace('pod-b', [['x', 3]]);
  assert.deepEqual(dump(index), [['x', [1, 3]], ['y', [2]]]);
  index.replace('pod-a', [['x', 5]]);
  assert.deepEqual(dump(index), [['x', [3, 5]]], '`y` had only pod-a\'s value: its store is gone');
  assert.equal(index.has('y'), false);
  assert.equal(index.get('y'), undefined);
  assert.equal(index.size, 1);
});

test('discarding an object removes its values from every key, and empty stores with them', () => {
  const index = new MutableIndex<string, string>();
  index.replace('pod-a', [['app', 'a'], ['tier', 'a']]);
  index.replace('pod-b', [['app', 'b']]);
  index.discard('pod-a');
  assert.deepEqual(dump(index), [['app', ['b']]]);
  index.discard('pod-b');
  index.discard('pod-unknown');
  assert.equal(index.size, 0);
  assert.deepEqual([...index.keys()], []);
});

test('an empty mapping takes all of the object\'s values out', () => {
  const index = new MutableIndex<string, number>();
  index.replace('pod-a', [['x', 1]]);
  index.replace('pod-a', []);
  assert.equal(index.size, 0);
});

test('keys are compared by value: tuples as Python\'s, and 1 is not \'1\'', () => {
  const index = new MutableIndex<IndexKey, boolean>();
  index.replace('pod-a', [[['default', 'web'], true]]);
  index.replace('pod-b', [[1, false], ['1', true]]);
  const store = index.get(['default', 'web']);
  assert.ok(store);
  assert.deepEqual([...store], [true]);
  assert.deepEqual([...index.keys()], [['default', 'web'], 1, '1']);
  assert.deepEqual([...index.get(1)!], [false]);
});

test('a store is a collection: size, iteration, membership by deep equality', () => {
  const index = new MutableIndex<null, { phase: string }>();
  index.replace('pod-a', [[null, { phase: 'Running' }]]);
  index.replace('pod-b', [[null, { phase: 'Pending' }]]);
  const store = index.get(null)!;
  assert.equal(store.size, 2);
  assert.equal(store.has({ phase: 'Pending' }), true);
  assert.equal(store.has({ phase: 'Failed' }), false);
  assert.deepEqual([...store.values()].map((v) => v.phase).sort(), ['Pending', 'Running']);
  assert.deepEqual(JSON.parse(JSON.stringify(store)), [{ phase: 'Running' }, { phase: 'Pending' }]);
});

test('what an index function returns: a plain object or a Map is a mapping, anything else one value under null', () => {
  assert.deepEqual([...indexEntries({ a: 1, b: 2 })], [['a', 1], ['b', 2]]);
  assert.deepEqual([...indexEntries(new Map([[['ns', 'n'], true]]))], [[['ns', 'n'], true]]);
  assert.deepEqual([...indexEntries('text')], [[null, 'text']]);
  assert.deepEqual([...indexEntries([1, 2])], [[null, [1, 2]]]);
  const date = new Date(0);
  assert.deepEqual([...indexEntries(date)], [[null, date]]);
  assert.deepEqual([...indexEntries(Object.create(null) as object)], []);
});

test('the indices know only the indexes of their handlers; an unknown id is an error', () => {
  const indexers = new OperatorIndexers(['by_label', 'is_running']);
  indexers.replace('by_label', 'pod-a', { app: 'web' });
  indexers.replace('is_running', 'pod-a', true);
  const { indices } = indexers;
  assert.deepEqual([...indices.keys()], ['by_label', 'is_running']);
  assert.equal(indices.size, 2);
  assert.equal(indices.has('by_label'), true);
  assert.deepEqual(dump(indices.get('by_label')), [['app', ['web']]]);
  assert.deepEqual(dump(indices.get({ id: 'is_running' })), [[null, [true]]]);
  assert.throws(() => indices.get('by_owner'), /There is no index 'by_owner' in this operator/);
  indexers.discardAll('pod-a');
  assert.equal(indices.get('by_label').size, 0);
  assert.equal(indices.get('is_running').size, 0);
});

test('the readiness gate opens when the last holder releases it, and calls its waiters once', () => {
  const gate = new IndexReadiness();
  const calls: string[] = [];
  gate.whenOpen(() => calls.push('at once'));
  assert.deepEqual(calls, ['at once']);
  gate.hold('stream');
  gate.hold('pod-a');
  gate.hold('pod-a');
  gate.whenOpen(() => calls.push('waiter'));
  const cancel = gate.whenOpen(() => calls.push('cancelled'));
  cancel();
  gate.release('stream');
  assert.equal(gate.open, false);
  assert.deepEqual(calls, ['at once']);
  gate.release('pod-a');
  assert.equal(gate.open, true);
  gate.release('pod-a');
  assert.deepEqual(calls, ['at once', 'waiter']);
});
