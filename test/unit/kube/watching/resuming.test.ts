/**
 * A watch that breaks resumes where it was: from the last resourceVersion after silence or a
 * malformed line, from a new listing after 410 Gone (with synthetic DELETED for what went
 * meanwhile) or an expired continue token, after Retry-After on 429.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listObjects, watchStream } from '../../../../runtime/kube/index.ts';
import { clientOf, sendJson, startServer, status } from '../fake-server.ts';
import { Things, obj, listOf, line, startWatch, watchServer, take, Arrivals } from './streams.ts';

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
  // Answered at once: a loaded machine must not let this stream go silent too.
  startWatch(next.res);
  next.res.write(line('MODIFIED', obj('a', '12')));
  await closed;
  assert.equal(next.req.query.get('resourceVersion'), '11');
  assert.ok(next.req.at - silent.req.at >= 200, 'not before the timeout');
  assert.equal(server.received.filter((r) => !r.query.get('watch')).length, 1, 'no re-list');
  assert.deepEqual(await modified, ['MODIFIED a']);
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
