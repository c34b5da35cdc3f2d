/**
 * What a watch yields: the listing in pages, then the watch's events from where it ended, each
 * whole and in order however the bytes arrive or however slowly they are consumed; and how it
 * ends, by the signal or by leaving the loop, closing its connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchStream } from '../../../../runtime/kube/index.ts';
import { clientOf, deferred, sendJson, startServer } from '../fake-server.ts';
import { Things, obj, listOf, line, bookmark, startWatch, watchServer, take } from './streams.ts';

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
