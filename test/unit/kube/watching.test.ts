import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { ApiError, WatchError, listObjects, watchStream } from '../../../runtime/kube/index.ts';
import type { RetryNotice, StreamEvent } from '../../../runtime/kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { WatchFreshness } from '../../../runtime/kube/watching/freshness.ts';
import { clientOf, deferred, sendJson, startServer, status } from './fake-server.ts';
import type { Received } from './fake-server.ts';

const Things: ResourceDescriptor = {
  group: 'example.com',
  version: 'v1',
  plural: 'things',
  kind: 'Thing',
  scope: 'Namespaced',
};

function obj(name: string, rv: string, extra: object = {}): KubeObject {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv }, ...extra };
}
function listOf(items: KubeObject[], rv: string, cont?: string): object {
  return {
    kind: 'ThingList',
    apiVersion: 'example.com/v1',
    metadata: { resourceVersion: rv, ...(cont ? { continue: cont } : {}) },
    items,
  };
}
function line(type: string, object: object): string {
  return JSON.stringify({ type, object }) + '\n';
}
function bookmark(rv: string): string {
  return line('BOOKMARK', { kind: 'Thing', apiVersion: 'example.com/v1', metadata: { resourceVersion: rv } });
}
function startWatch(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

/** Watch requests in arrival order, to be answered by the test. */
class Arrivals {
  readonly #waiting: ((w: { req: Received; res: ServerResponse }) => void)[] = [];
  readonly #queued: { req: Received; res: ServerResponse }[] = [];
  push(w: { req: Received; res: ServerResponse }): void {
    const next = this.#waiting.shift();
    if (next) next(w); else this.#queued.push(w);
  }
  next(): Promise<{ req: Received; res: ServerResponse }> {
    const queued = this.#queued.shift();
    return queued ? Promise.resolve(queued) : new Promise((resolve) => this.#waiting.push(resolve));
  }
}

/**
 * A server whose listings `list` answers and whose watch requests wait in `watches` for the test to
 * answer; when the test ends, it is closed and the streams' signal is aborted.
 */
async function watchServer(t: TestContext, list: (req: Received, res: ServerResponse) => void) {
  const watches = new Arrivals();
  const server = await startServer(
    (req, res) => (req.query.get('watch') ? watches.push({ req, res }) : list(req, res))
  );
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  return { server, watches, controller, signal: controller.signal, client: clientOf(server) };
}

function describeEvent(e: StreamEvent<KubeObject>): string {
  if (e.type === 'LISTED_DONE' || e.type === 'BOOKMARK') return `${e.type} ${e.resourceVersion}`;
  return `${e.type}${e.type === 'DELETED' && e.synthetic ? '*' : ''} ${e.object.metadata?.name}`;
}

async function take(it: AsyncIterator<StreamEvent<KubeObject>>, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(describeEvent(r.value));
  }
  return out;
}

test('list in pages, then watch from the listing; bookmarks move the resume point', async (t) => {
  const { server, watches, controller, client } = await watchServer(t, (req, res) => {
    if (!req.query.get('continue')) sendJson(res, 200, listOf([obj('a', '5'), obj('b', '6')], '10', 'page-2'));
    else sendJson(res, 200, listOf([obj('c', '7')], '10'));
  });
  const it = watchStream(client, Things, { namespace: 'ns', pageSize: 2, signal: controller.signal })[
    Symbol.asyncIterator
  ]();

  const listed = await it.next();
  assert.equal(listed.value?.type, 'LISTED');
  assert.deepEqual(
    listed.value?.type === 'LISTED' && [listed.value.object.kind, listed.value.object.apiVersion],
    ['Thing', 'example.com/v1'],
  );
  assert.deepEqual(await take(it, 3), ['LISTED b', 'LISTED c', 'LISTED_DONE 10']);
  const lists = server.received.filter((r) => !r.query.get('watch'));
  assert.deepEqual(lists.map((r) => [r.path, r.query.get('limit'), r.query.get('continue')]), [
    ['/apis/example.com/v1/namespaces/ns/things', '2', null],
    ['/apis/example.com/v1/namespaces/ns/things', '2', 'page-2'],
  ]);

  // The generator is lazy: the watch request goes out when the consumer asks for more.
  const events = take(it, 4);
  const first = await watches.next();
  assert.equal(first.req.path, '/apis/example.com/v1/namespaces/ns/things');
  assert.equal(first.req.query.get('resourceVersion'), '10');
  assert.equal(first.req.query.get('allowWatchBookmarks'), 'true');
  startWatch(first.res);
  first.res.end(
    line('ADDED', obj('d', '11')) + line('MODIFIED', obj('a', '12')) + line('DELETED', obj('b', '13')) + bookmark('20')
  );
  assert.deepEqual(await events, ['ADDED d', 'MODIFIED a', 'DELETED b', 'BOOKMARK 20']);

  const more = take(it, 1);
  const second = await watches.next();
  assert.equal(second.req.query.get('resourceVersion'), '20', 'resumed from the bookmark, without a re-list');
  startWatch(second.res);
  second.res.write(line('ADDED', obj('e', '21')));
  assert.deepEqual(await more, ['ADDED e']);
  controller.abort();
  assert.deepEqual(await it.next(), { value: undefined, done: true });
  assert.equal(server.received.filter((r) => !r.query.get('watch')).length, 2);
  assert.deepEqual(client.requestCounts(), { list: 2, watch: 2 });
});

test('an event of an unknown type is skipped, and told to whoever asked', async (t) => {
  const { watches, signal, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '10')));
  const unsupported: unknown[] = [];
  const it = watchStream(client, Things, { signal, onUnsupported: (raw) => unsupported.push(raw) })[
    Symbol.asyncIterator
  ]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 10']);
  const events = take(it, 2);
  const first = await watches.next();
  startWatch(first.res);
  first.res.write(line('ADDED', obj('a', '11')) + line('RENAMED', obj('a', '12')) + line('MODIFIED', obj('a', '13')));
  assert.deepEqual(await events, ['ADDED a', 'MODIFIED a']);
  assert.deepEqual(unsupported, [{ type: 'RENAMED', object: obj('a', '12') }]);
});

test('a watch line longer than a socket chunk arrives whole', async (t) => {
  const big = 'x'.repeat(3 * 1024 * 1024);
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    startWatch(res);
    const payload = Buffer.from(line('ADDED', obj('big', '2', { data: { big } })) + line('ADDED', obj('small', '3')));
    // Written in odd pieces, cut inside the JSON and between the two lines.
    for (let i = 0; i < payload.length; i += 65_521) res.write(payload.subarray(i, i + 65_521));
  });
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  const it = watchStream(clientOf(server), Things, { signal: controller.signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 1']);
  const first = (await it.next()).value;
  assert.ok(first?.type === 'ADDED');
  assert.equal((first.object.data as { big: string }).big.length, big.length);
  assert.deepEqual(await take(it, 1), ['ADDED small']);
});

test('a silent stream is re-established after the inactivity timeout, from the last resourceVersion', async (t) => {
  const { server, watches, signal, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '10')));
  const it = watchStream(client, Things, { inactivityTimeout: 0.2, signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 10']);

  const added = take(it, 1);
  const silent = await watches.next();
  startWatch(silent.res);
  silent.res.write(line('ADDED', obj('a', '11')));
  const closed = new Promise((resolve) => silent.res.once('close', resolve));
  assert.deepEqual(await added, ['ADDED a']);

  const modified = take(it, 1);
  const next = await watches.next();
  await closed;
  assert.equal(next.req.query.get('resourceVersion'), '11');
  assert.ok(next.req.at - silent.req.at >= 200, 'not before the timeout');
  assert.equal(server.received.filter((r) => !r.query.get('watch')).length, 1, 'no re-list');
  startWatch(next.res);
  next.res.write(line('MODIFIED', obj('a', '12')));
  assert.deepEqual(await modified, ['MODIFIED a']);
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

test('an in-stream 410 re-lists, with synthetic DELETED for objects gone meanwhile', async (t) => {
  let lists = 0;
  const { watches, signal, client } = await watchServer(t, (_req, res) => {
    lists++;
    if (lists === 1) sendJson(res, 200, listOf([obj('a', '5'), obj('b', '6')], '10'));
    else sendJson(res, 200, listOf([obj('a', '30'), obj('c', '31')], '40'));
  });
  const it = watchStream(client, Things, { signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 3), ['LISTED a', 'LISTED b', 'LISTED_DONE 10']);

  const added = take(it, 1);
  const first = await watches.next();
  startWatch(first.res);
  first.res.write(line('ADDED', obj('d', '11')));
  first.res.end(line('ERROR', status(410, 'Expired', 'too old resource version: 11 (25)')));
  assert.deepEqual(await added, ['ADDED d']);
  assert.deepEqual(await take(it, 5), ['LISTED a', 'LISTED c', 'DELETED* b', 'DELETED* d', 'LISTED_DONE 40']);
  void it.next();
  const second = await watches.next();
  assert.equal(second.req.query.get('resourceVersion'), '40');
});

test('an HTTP 410 on the watch request re-lists too', async (t) => {
  let lists = 0;
  const watches = new Arrivals();
  const server = await startServer((req, res) => {
    if (req.query.get('watch')) {
      if (req.query.get('resourceVersion') === 'ancient') return sendJson(res, 410, status(410, 'Gone', 'too old'));
      return watches.push({ req, res });
    }
    lists++;
    sendJson(res, 200, listOf([obj('a', '50')], '60'));
  });
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  const it = watchStream(clientOf(server), Things, { resourceVersion: 'ancient', signal: controller.signal })[
    Symbol.asyncIterator
  ]();
  assert.deepEqual(await take(it, 2), ['LISTED a', 'LISTED_DONE 60']);
  assert.equal(lists, 1);
  void it.next();
  assert.equal((await watches.next()).req.query.get('resourceVersion'), '60');
});

test('an expired continue token restarts the listing from its first page', async (t) => {
  let expired = false;
  const server = await startServer((req, res) => {
    const cont = req.query.get('continue');
    if (!cont) return sendJson(res, 200, listOf([obj('a', '1'), obj('b', '2')], expired ? '20' : '10', 'p2'));
    if (!expired) {
      expired = true;
      return sendJson(res, 410, status(410, 'Expired', 'The provided continue parameter is too old'));
    }
    sendJson(res, 200, listOf([obj('c', '3')], '20'));
  });
  t.after(() => server.close());
  const client = clientOf(server);
  const result = await listObjects(client, Things, { pageSize: 2 });
  assert.deepEqual(result.items.map((o) => o.metadata?.name), ['a', 'b', 'c']);
  assert.equal(result.resourceVersion, '20');
  assert.deepEqual(server.received.map((r) => r.query.get('continue')), [null, 'p2', null, 'p2']);

  expired = false;
  const controller = new AbortController();
  t.after(() => controller.abort());
  const it = watchStream(client, Things, { pageSize: 2, signal: controller.signal })[Symbol.asyncIterator]();
  // The restarted listing repeats what it had yielded; no synthetic deletions on a first listing.
  assert.deepEqual(await take(it, 6), ['LISTED a', 'LISTED b', 'LISTED a', 'LISTED b', 'LISTED c', 'LISTED_DONE 20']);
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

test('429 on the watch request waits for Retry-After, then resumes', async (t) => {
  const watches = new Arrivals();
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    if (server.received.filter((r) => r.query.get('watch')).length === 1)
      return sendJson(res, 429, status(429, 'TooManyRequests', 'later'), { 'Retry-After': '1' });
    watches.push({ req, res });
  });
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  const it = watchStream(clientOf(server), Things, { signal: controller.signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 1']);
  const added = take(it, 1);
  const retried = await watches.next();
  const attempts = server.received.filter((r) => r.query.get('watch'));
  assert.ok(attempts[1].at - attempts[0].at >= 1000);
  startWatch(retried.res);
  retried.res.write(line('ADDED', obj('a', '2')));
  assert.deepEqual(await added, ['ADDED a']);
});

test('the signal ends the iteration cleanly and closes the connection', async (t) => {
  const { watches, controller, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '1')));
  const it = watchStream(client, Things, { signal: controller.signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 1']);
  const pending = it.next();
  const open = await watches.next();
  startWatch(open.res);
  const closed = new Promise((resolve) => open.res.once('close', resolve));
  controller.abort();
  assert.deepEqual(await pending, { value: undefined, done: true });
  await closed;
});

test('leaving the loop early closes the connection', async (t) => {
  const { watches, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '1')));
  const consumer = (async () => {
    for await (const e of watchStream(client, Things)) if (e.type === 'ADDED') break;
  })();
  const open = await watches.next();
  startWatch(open.res);
  const closed = new Promise((resolve) => open.res.once('close', resolve));
  open.res.write(line('ADDED', obj('a', '2')));
  await consumer;
  await closed;
});

test('a slow consumer pauses the socket (bounded buffer) and still gets every event in order', async (t) => {
  const total = 400;
  const payload = 'p'.repeat(100_000);
  let writtenBeforeBackpressure = -1;
  const { promise: backpressured, resolve: onBackpressure } = deferred();
  const { promise: rewatched, resolve: onRewatch } = deferred<string | null>();
  let watches = 0;
  const server = await startServer((req, res) => {
    if (!req.query.get('watch')) return sendJson(res, 200, listOf([], '1'));
    startWatch(res);
    if (watches++ > 0) return onRewatch(req.query.get('resourceVersion'));
    let n = 0;
    const pump = () => {
      while (n < total) {
        n++;
        const more = res.write(line('ADDED', obj(`o${n}`, String(n + 1), { payload })));
        if (!more) {
          if (writtenBeforeBackpressure < 0) {
            writtenBeforeBackpressure = n;
            onBackpressure();
          }
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  const it = watchStream(
    clientOf(server),
    Things,
    { bufferSize: 5, inactivityTimeout: 0.3, signal: controller.signal },
  )[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 2), ['LISTED_DONE 1', 'ADDED o1']);
  await backpressured;
  assert.ok(
    writtenBeforeBackpressure < total / 2,
    `the server wrote ${writtenBeforeBackpressure} events before the client pushed back`,
  );
  // Hold the consumer longer than the inactivity timeout: a paused socket is our silence, not the server's.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const names = await take(it, total - 1);
  assert.deepEqual(names, Array.from({ length: total - 1 }, (_, i) => `ADDED o${i + 2}`));
  assert.equal(server.received.filter((r) => r.query.get('watch')).length, 1, 'one connection throughout');
  // Resumed and then silent: the inactivity timeout works again after a pause.
  void take(it, 1);
  assert.equal(await rewatched, String(total + 1));
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

test('a malformed line is a failure: the watch resumes from the last good event', async (t) => {
  const { watches, signal, client } = await watchServer(t, (_req, res) => sendJson(res, 200, listOf([], '1')));
  const it = watchStream(client, Things, { signal })[Symbol.asyncIterator]();
  assert.deepEqual(await take(it, 1), ['LISTED_DONE 1']);
  const events = take(it, 2);
  const broken = await watches.next();
  startWatch(broken.res);
  broken.res.write(line('ADDED', obj('a', '2')) + '<html>proxy error</html>\n' + line('ADDED', obj('lost', '3')));
  const next = await watches.next();
  assert.equal(next.req.query.get('resourceVersion'), '2');
  startWatch(next.res);
  next.res.write(line('ADDED', obj('b', '3')));
  assert.deepEqual(await events, ['ADDED a', 'ADDED b']);
});
