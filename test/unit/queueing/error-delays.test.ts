import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorDelays } from '../../../runtime/queueing/error-delays.ts';

test('failures in a row walk the delays, and the last one repeats once they run out', () => {
  const delays = new ErrorDelays([1, 2, 5]);
  assert.deepEqual([1, 2, 3, 4, 5].map(() => delays.next()), [1, 2, 5, 5, 5]);
});

test('a last delay of zero repeats as any other', () => {
  const delays = new ErrorDelays([3, 0]);
  assert.deepEqual([delays.next(), delays.next(), delays.next()], [3, 0, 0]);
});

test('no delays at all: none to wait', () => {
  assert.equal(new ErrorDelays([]).next(), undefined);
});

test('each walk starts at the first delay, from the same settings', () => {
  const settings = [4, 8];
  const first = new ErrorDelays(settings);
  first.next();
  first.next();
  assert.equal(new ErrorDelays(settings).next(), 4);
});
