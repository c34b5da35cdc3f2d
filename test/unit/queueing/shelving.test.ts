/**
 * Requests shelved far back in line (`Shelf` of runtime/queueing/workers.ts): kept as what the
 * shelf makes of them past `shelveAfter` objects in line, made whole when a worker takes the
 * object; a newer request, a pause and an object gone meanwhile each do what they do to a whole one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectQueues, type Shelf } from '../../../runtime/queueing/workers.ts';
import { ev, req, type Named } from './requests.ts';

interface Shelved { readonly kind: 'event'; readonly shelvedName: string }

/** A latch: a promise resolved from outside. */
function latch() {
  let open!: () => void;
  const promise = new Promise<void>((r) => { open = r; });
  return { promise, open };
}

/** A shelf that records what it does; `unshelving` may hold an unshelve until the test lets it go. */
function recordingShelf(unshelving?: (name: string, signal: AbortSignal) => Promise<void>) {
  const shelved: string[] = [];
  const unshelved: string[] = [];
  const shelf: Shelf<Named<string>, Shelved> = {
    shelve(request) {
      if (request.kind !== 'event' || request.name.startsWith('whole')) return undefined;
      shelved.push(request.name);
      return { kind: 'event', shelvedName: request.name };
    },
    async unshelve({ shelvedName }, signal) {
      await unshelving?.(shelvedName, signal);
      unshelved.push(shelvedName);
      return shelvedName.startsWith('gone') ? undefined : ev(`${shelvedName} (read again)`);
    },
  };
  return { shelf, shelved, unshelved };
}

/** Resolves once nothing runs or waits: each settle() awaits the cycles running when called. */
async function drained(queue: ObjectQueues<Named<string>, Shelved>): Promise<void> {
  while (queue.size) await queue.settle((all) => all.then());
}

/** A queue of one worker whose first object holds the worker until `release` opens. */
function blockedQueue(shelf: Shelf<Named<string>, Shelved>, shelveAfter = 1) {
  const seen: string[] = [];
  const release = latch();
  const running = latch();
  const queue = new ObjectQueues<Named<string>, Shelved>(async (key, { event }) => {
    seen.push(`${key}:${event.name}`);
    if (event.name === 'first') { running.open(); await release.promise; }
  }, { workerLimit: 1, shelf, shelveAfter });
  return { queue, seen, release, running };
}

test('objects past `shelveAfter` in line wait shelved and are processed as read again, in their turn', async () => {
  const { shelf, shelved, unshelved } = recordingShelf();
  const { queue, seen, release, running } = blockedQueue(shelf, 2);
  queue.enqueue('a', ev('first'));
  await running.promise;
  for (const key of ['b', 'c', 'd', 'e']) queue.enqueue(key, ev(`${key}1`));
  assert.deepEqual(shelved, ['d1', 'e1']);
  assert.equal(queue.waiting, 4);
  release.open();
  await drained(queue);
  assert.deepEqual(seen, ['a:first', 'b:b1', 'c:c1', 'd:d1 (read again)', 'e:e1 (read again)']);
  assert.deepEqual(unshelved, ['d1', 'e1']);
  assert.equal(queue.size, 0);
});

test('a newer event for a shelved object is shelved in its place; the shelf\'s refusals wait whole', async () => {
  const { shelf, shelved, unshelved } = recordingShelf();
  const { queue, seen, release, running } = blockedQueue(shelf, 0);
  queue.enqueue('a', ev('first'));
  await running.promise;
  queue.enqueue('b', ev('b1'));
  queue.enqueue('b', ev('b2'));
  queue.enqueue('c', ev('whole-c1'));
  queue.enqueue('d', ev('d1'));
  queue.enqueue('d', req('d-request')); // yields to the shelved event: it does all the request would
  release.open();
  await drained(queue);
  assert.deepEqual(shelved, ['b1', 'b2', 'd1']);
  assert.deepEqual(unshelved, ['b2', 'd1']);
  assert.deepEqual(seen, ['a:first', 'b:b2 (read again)', 'c:whole-c1', 'd:d1 (read again)']);
});

test('an object gone by its turn is not processed, and the line goes on', async () => {
  const { shelf } = recordingShelf();
  const { queue, seen, release, running } = blockedQueue(shelf, 0);
  queue.enqueue('a', ev('first'));
  await running.promise;
  queue.enqueue('b', ev('gone-b'));
  queue.enqueue('c', ev('c1'));
  release.open();
  await drained(queue);
  assert.deepEqual(seen, ['a:first', 'c:c1 (read again)']);
  assert.equal(queue.size, 0);
});

/**
 * A queue whose one worker, once the first object is done, reads `key`'s shelved `name` again and
 * waits there until its signal is aborted; resolves then, with what the abort said kept.
 */
async function readingAgain(key: string, name: string) {
  const reading = latch();
  const abortedWith: string[] = [];
  const { shelf } = recordingShelf(async (each, signal) => {
    if (each !== name || abortedWith.length) return;
    reading.open();
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    abortedWith.push((signal.reason as Error).message);
  });
  const { queue, seen, release, running } = blockedQueue(shelf, 0);
  queue.enqueue('a', ev('first'));
  await running.promise;
  queue.enqueue(key, ev(name));
  release.open();
  await reading.promise;
  return { queue, seen, abortedWith };
}

test('a newer event while the object is read again goes instead', async () => {
  const { queue, seen, abortedWith } = await readingAgain('b', 'b1');
  queue.enqueue('b', ev('b2'));
  await drained(queue);
  assert.deepEqual(abortedWith, ['A newer event has come for this object.']);
  assert.deepEqual(seen, ['a:first', 'b:b2']);
  assert.equal(queue.size, 0);
});

test('a pause while the object is read again puts it back on the shelf, read again after the pause', async () => {
  const { queue, seen, abortedWith } = await readingAgain('c', 'c1');
  queue.pause();
  await new Promise(setImmediate); // the aborted reading's promises settle
  assert.deepEqual(abortedWith, ['Processing is paused.']);
  assert.equal(queue.waiting, 1, 'the object waits, shelved again');
  queue.resume();
  await drained(queue);
  assert.deepEqual(seen, ['a:first', 'c:c1 (read again)']);
});
