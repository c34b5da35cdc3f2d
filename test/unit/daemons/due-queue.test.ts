/**
 * The process's queue of due times, which timers wait in instead of suspended async frames: its
 * entries are called in the order they are due, once, and never after being taken out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DueQueue, type Due } from '../../../runtime/daemons/due-queue.ts';

/** An entry that records its call; the test awaits the calls it expects (no sleeps). */
function entries(count: number, fired: number[], done: () => void, expected: number): Due[] {
  return Array.from({ length: count }, (_, id) => ({
    at: 0,
    slot: -1,
    fire() {
      fired.push(id);
      if (fired.length === expected) done();
    },
  }));
}

test('due entries are called once each, earliest first; entries taken out or moved are not called where they were',
  async () => {
    const queue = new DueQueue();
    const fired: number[] = [];
    const now = performance.now();
    // Pseudo-random due times in the past, so that all are due at the queue's next turn.
    const times = Array.from({ length: 300 }, (_, i) => now - 1000 - ((i * 7919) % 997));
    let done!: () => void;
    const all = new Promise<void>((resolve) => { done = resolve; });
    const list = entries(times.length, fired, done, 200);
    list.forEach((entry, i) => queue.schedule(entry, times[i]!));
    for (let i = 0; i < 100; i++) queue.remove(list[i * 3]!);
    queue.remove(list[0]!); // a second removal does nothing
    assert.equal(queue.size, 200);
    await all;
    assert.equal(queue.size, 0);
    const kept = list.map((_, i) => i).filter((i) => i % 3 !== 0 || i >= 300);
    assert.deepEqual([...fired].sort((a, b) => a - b), kept, 'every entry left in is called once');
    assert.deepEqual(fired, [...fired].sort((a, b) => times[a]! - times[b]! || 0), 'earliest first');
  });

test('an entry scheduled again is moved, not doubled; one far ahead waits while an earlier one is called',
  async () => {
    const queue = new DueQueue();
    const fired: number[] = [];
    let done!: () => void;
    const first = new Promise<void>((resolve) => { done = resolve; });
    const [later, soon] = entries(2, fired, done, 1);
    queue.schedule(later!, performance.now());
    queue.schedule(later!, performance.now() + 3_600_000);
    queue.schedule(soon!, performance.now());
    await first;
    assert.deepEqual(fired, [1]);
    assert.equal(queue.size, 1, 'the moved entry waits for its new time');
    queue.remove(later!);
    assert.equal(queue.size, 0, 'an empty queue holds no Node timer, so the test process can end');
  });
