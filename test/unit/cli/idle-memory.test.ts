/**
 * `kopf run` gives memory back once the operator is quiet: the young generation grown by a burst
 * of work shrinks again, without `gc` showing in the operator's global scope.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics } from 'node:v8';
import { returnMemoryWhenIdle } from '../../../runtime/cli/idle-memory.ts';

function youngMiB(): number {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return (young?.space_size ?? 0) / 2 ** 20;
}

/** A burst whose objects live through a few young collections, which makes V8 grow the young generation. */
function burst(): void {
  const kept: object[][] = [];
  for (let i = 0; i < 200; i++) {
    kept.push(Array.from({ length: 5000 }, (_, j) => ({ j, text: `item ${j}` })));
    if (kept.length > 10) kept.shift();
  }
}

test('after a burst, a quiet period brings one collection that shrinks the young generation', async () => {
  burst();
  const grown = youngMiB();
  assert.ok(grown > 2, `the burst grew the young generation (${grown} MiB)`);
  let collected!: () => void;
  const collection = new Promise<void>((resolve) => { collected = resolve; });
  const stop = returnMemoryWhenIdle({ periodMs: 20, collected });
  // The watcher's timer does not keep a process up (an operator's streams do): this one does, for the test.
  const alive = setInterval(() => undefined, 1000);
  try {
    await collection;
  } finally {
    stop();
    clearInterval(alive);
  }
  assert.ok(youngMiB() < grown / 2, `shrunk from ${grown} to ${youngMiB()} MiB`);
  assert.equal('gc' in globalThis, false, 'the global scope has no gc');
});
