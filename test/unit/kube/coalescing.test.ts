/**
 * Read coalescing: after a turn of the event loop that read API responses, the thread sleeps for
 * what is left of the window, once per turn, and not at all when asked for none or when the turn
 * took the whole window itself. The clock and the sleep are the test's; one test uses the real
 * ones through a client, to see that a client's connections report their reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadCoalescer } from '../../../runtime/kube/http/coalescing.ts';
import { clientOf, sendJson, startServer } from './fake-server.ts';

/** Resolves in the check phase, after the immediates queued before it. */
const afterTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function fakeThread(): { coalescer: ReadCoalescer; sleeps: number[]; advance(ms: number): void } {
  let now = 1000;
  const sleeps: number[] = [];
  const coalescer = new ReadCoalescer(() => now, (ms) => { sleeps.push(ms); now += ms; });
  return { coalescer, sleeps, advance: (ms) => { now += ms; } };
}

test('reads in one turn are followed by one sleep, for what is left of the window, after the turn', async () => {
  const { coalescer, sleeps, advance } = fakeThread();
  coalescer.read(3);
  advance(1);
  coalescer.read(3);
  assert.deepEqual(sleeps, [], 'not while the turn goes on');
  await afterTurn();
  assert.deepEqual(sleeps, [2]);

  coalescer.read(3);
  await afterTurn();
  assert.deepEqual(sleeps, [2, 3], 'the next turn with reads sleeps again');
});

test('a turn that took the whole window, or a window of 0, is not followed by a sleep', async () => {
  const { coalescer, sleeps, advance } = fakeThread();
  coalescer.read(3);
  advance(3);
  await afterTurn();
  coalescer.read(0);
  await afterTurn();
  assert.deepEqual(sleeps, []);
});

test('connections with different windows in one turn: one sleep, for the longest', async () => {
  const { coalescer, sleeps } = fakeThread();
  coalescer.read(2);
  coalescer.read(0);
  coalescer.read(5);
  await afterTurn();
  assert.deepEqual(sleeps, [5]);
});

test('a client asked to coalesce sleeps the thread after the turn that read its response', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 200, {}));
  t.after(() => server.close());
  const window = 0.2;
  const client = clientOf(server, { readCoalescing: window });
  t.after(() => client.close());
  const started = performance.now();
  await client.request('GET', '/api');
  await afterTurn();
  // The sleep ran before this immediate (queued by the read; this one after the response), and
  // lasted until the window that began with the read was over: whatever the turns took under load,
  // the time since before the request is at least the window. Without the sleep it is a few ms.
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= window * 1000 * 0.99, `slept until ${elapsed} ms after the request began`);
});
