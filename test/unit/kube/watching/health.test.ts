/**
 * How a watch tells its health: its liveness at every page, opened stream and event, and the
 * wait before a retry; and when it fails for good (WatchError with the cause): a retry budget
 * spent, a listing that keeps failing, a 403, a request that gets no response headers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, WatchError, watchStream } from '../../../../runtime/kube/index.ts';
import type { RetryNotice } from '../../../../runtime/kube/index.ts';
import { WatchFreshness } from '../../../../runtime/kube/watching/freshness.ts';
import { clientOf, sendJson, startServer, status } from '../fake-server.ts';
import { Things, obj, listOf, line, startWatch, watchServer, take, describeEvent } from './streams.ts';

test('the stream tells its liveness: each listing page, opened stream and event; the wait before a retry', async (
  t
) => {
  const { watches, signal, client } = await watchServer(
    t,
    (_req, res) => sendJson(res, 200, listOf([obj('a', '10')], '10')),
  );
  const told: string[] = [];
  const liveness = {
    alive: () => told.push('alive'),
    retrying: (seconds: number) => told.push(`retrying ${seconds}`),
    ended: () => told.push('ended'),
  };
  const it = watchStream(client, Things, { inactivityTimeout: 0.2, errorBackoffs: [0.05], liveness, signal })[
    Symbol.asyncIterator
  ]();
  assert.deepEqual(await take(it, 2), ['LISTED a', 'LISTED_DONE 10']);
  assert.deepEqual(told, ['alive'], 'the page');

  const added = take(it, 1);
  const silent = await watches.next();
  startWatch(silent.res);
  silent.res.write(line('ADDED', obj('b', '11')));
  assert.deepEqual(await added, ['ADDED b']);
  assert.deepEqual(told, ['alive', 'alive', 'alive'], 'the page, the stream opened, the event');

  // Silent past the inactivity timeout: stale, and a retry is no sign of life; only the server's is.
  const modified = take(it, 1);
  const next = await watches.next();
  assert.deepEqual(told, ['alive', 'alive', 'alive']);
  startWatch(next.res);
  next.res.write(line('MODIFIED', obj('b', '12')));
  assert.deepEqual(await modified, ['MODIFIED b']);
  assert.deepEqual(told.slice(-2), ['alive', 'alive']);

  // Ended, and answered 503 when opened again: the retry's wait is told before the next one.
  const deleted = take(it, 1);
  next.res.end();
  const refused = await watches.next();
  sendJson(refused.res, 503, status(503, 'ServiceUnavailable', 'busy'));
  const last = await watches.next();
  assert.match(told.at(-1) ?? '', /^retrying 0\.\d+$/);
  startWatch(last.res);
  last.res.write(line('DELETED', obj('b', '13')));
  assert.deepEqual(await deleted, ['DELETED b']);
});

test('a watch that keeps failing throws WatchError with the cause after its retry budget', async (t) => {
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    sendJson(res, 500, status(500, 'InternalError', 'etcd is down'));
  });
  t.after(() => server.close());
  const events: string[] = [];
  const notices: RetryNotice[] = [];
  const client = clientOf(server, { onRetry: (notice) => notices.push(notice) });
  const error = await (async () => {
    for await (const e of watchStream(client, Things, { errorBackoffs: [0.01, 0.01, 0.01] })) events.push(
      describeEvent(e)
    );
  })().catch((e: unknown) => e);
  assert.deepEqual(events, ['LISTED_DONE 1']);
  assert.ok(error instanceof WatchError, String(error));
  assert.ok(error.cause instanceof ApiError && error.cause.status === 500);
  assert.match(error.message, /things\.example\.com\/v1 failed 4 times in a row.*etcd is down/);
  assert.equal(server.received.filter((r) => r.query.get('watch')).length, 4);
  // Each retry was announced, as for regular requests.
  assert.deepEqual(
    notices.map((n) => `${n.method} ${n.attempt}/${n.attempts}`),
    ['WATCH 1/4', 'WATCH 2/4', 'WATCH 3/4'],
  );
});

test('a failing listing throws WatchError once the client has retried it', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 503, status(503, 'ServiceUnavailable', 'not ready')));
  t.after(() => server.close());
  const error = await (async () => {
    for await (const e of watchStream(clientOf(server, { errorBackoffs: [0.01] }), Things)) assert.fail(
      `unexpected ${e.type}`
    );
  })().catch((e: unknown) => e);
  assert.ok(error instanceof WatchError);
  assert.match(error.message, /Listing things\.example\.com\/v1 failed/);
  assert.equal(server.received.length, 2);
});

test('a watch refused with 403 fails at once', async (t) => {
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    sendJson(res, 403, status(403, 'Forbidden', 'things is forbidden'));
  });
  t.after(() => server.close());
  const error = await (async () => {
    for await (const e of watchStream(clientOf(server), Things)) void e;
  })().catch((e: unknown) => e);
  assert.ok(error instanceof ApiError && error.status === 403);
  assert.equal(server.received.filter((r) => r.query.get('watch')).length, 1);
});

test('a watch request that gets no response headers in time counts as a failure', async (t) => {
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    // Accepted, never answered.
  });
  t.after(() => server.close());
  const error = await (async () => {
    for await (
      const e of watchStream(clientOf(server, { connectTimeout: 0.1 }), Things, { errorBackoffs: [0.01] })
    ) void e;
  })().catch((e: unknown) => e);
  assert.ok(error instanceof WatchError, String(error));
  assert.equal((error.cause as Error).name, 'TimeoutError');
  assert.equal(server.received.filter((r) => r.query.get('watch')).length, 2);
});

test('a watch whose response never comes is given up after the inactivity timeout, as a silent one', {
  timeout: 30_000, // without it, the client's request timeout (minutes) would hold the watch
}, async (t) => {
  const { server, watches, signal, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '10')));
  const freshness = new WatchFreshness();
  const liveness = freshness.track('things', 0.2);
  const restarts: string[] = [];
  const metrics = { event: () => {}, restart: (reason: string) => { restarts.push(reason); } };
  const options = { inactivityTimeout: 0.2, errorBackoffs: [0.01, 0.01, 0.01], liveness, metrics, signal };
  const it = watchStream(client, Things, options)[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 10']);

  const added = take(it, 1);
  // Accepted and never answered, twice: each is given up for its silence, and the stream is stale.
  for (let stalled = 0; stalled < 2; stalled++) {
    const unanswered = await watches.next();
    await new Promise((resolve) => unanswered.res.once('close', resolve));
  }
  const next = await watches.next();
  assert.deepEqual(restarts, ['inactivity', 'inactivity']);
  assert.equal(liveness.fresh(), false, 'silent past its inactivity timeout, and not re-established');
  assert.equal(next.req.query.get('resourceVersion'), '10');
  assert.equal(server.received.filter((r) => !r.query.get('watch')).length, 1, 'no re-list');
  startWatch(next.res);
  next.res.write(line('ADDED', obj('a', '11')));
  assert.deepEqual(await added, ['ADDED a']);
  assert.equal(liveness.fresh(), true);
});
