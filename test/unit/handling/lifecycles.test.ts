import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allAtOnce, asap, oneByOne, randomized, shuffled } from '../../../runtime/handling/lifecycles.ts';

const c = (id: string, retries: number) => ({ id, retries });

test('asap picks the one with the fewest attempts, ties in registration order', () => {
  assert.deepEqual(asap([c('a', 2), c('b', 1), c('c', 1)]).map((x) => x.id), ['b']);
  assert.deepEqual(asap([c('a', 0), c('b', 0)]).map((x) => x.id), ['a']);
  assert.deepEqual(asap([]), []);
});

test('all at once, one by one, and the random ones keep the set', () => {
  const all = [c('a', 0), c('b', 3), c('c', 1)];
  assert.deepEqual(allAtOnce(all).map((x) => x.id), ['a', 'b', 'c']);
  assert.deepEqual(oneByOne(all).map((x) => x.id), ['a']);
  assert.deepEqual(shuffled(all).map((x) => x.id).sort(), ['a', 'b', 'c']);
  assert.equal(randomized(all).length, 1);
});
