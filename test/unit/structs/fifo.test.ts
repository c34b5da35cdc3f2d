import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Fifo } from '../../../runtime/structs/fifo.ts';

test('a fifo gives its items back oldest first, across its compactions, and drains what is left', () => {
  const fifo = new Fifo<number>();
  const taken: number[] = [];
  for (let i = 0; i < 3000; i++) fifo.push(i);
  for (let i = 0; i < 2500; i++) taken.push(fifo.shift()!); // past the compaction threshold
  for (let i = 3000; i < 3100; i++) fifo.push(i);
  assert.equal(fifo.size, 600);
  while (fifo.size > 300) taken.push(fifo.shift()!);
  assert.deepEqual(taken, Array.from({ length: 2800 }, (_, i) => i));
  assert.deepEqual(fifo.drain(), Array.from({ length: 300 }, (_, i) => 2800 + i));
  assert.equal(fifo.size, 0);
  assert.equal(fifo.shift(), undefined);
});
