/**
 * A listing streamed as a watch's initial events (`sendInitialEvents`): one request and no LIST,
 * the same events as a paged listing, and a server that refuses it (or ignores it) listed in pages.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { watchStream, type StreamEvent } from '../../../../runtime/kube/index.ts';
import type { KubeObject } from '../../../../runtime/structs/resources.ts';
import { clientOf, sendJson } from '../fake-server.ts';
import { Things, obj, listOf, line, bookmark, startWatch, watchServer, take, type Arrivals } from './streams.ts';

function initialEventsEnd(rv: string): string {
  const metadata = { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } };
  return line('BOOKMARK', { kind: 'Thing', apiVersion: 'example.com/v1', metadata });
}

/** A watch of a fake server with streamed listings on; lists answer `rv 10` with `listed`. */
async function streamingWatch(t: TestContext, listed = [obj('a', '5')], inactivityTimeout?: number) {
  const fake = await watchServer(t, (_req, res) => sendJson(res, 200, listOf(listed, '10')));
  const client = clientOf(fake.server, { streamingLists: true });
  const refusals: unknown[] = [];
  const options = {
    signal: fake.signal, inactivityTimeout, onStreamingRefused: (cause: unknown) => refusals.push(cause),
  };
  const it = watchStream(client, Things, options)[Symbol.asyncIterator]();
  return { ...fake, client, it, refusals };
}

test('a streamed listing: initial events are listed, their bookmark ends the listing, no LIST is sent', async (t) => {
  const { watches, it, client, refusals } = await streamingWatch(t);
  const events = take(it, 4);
  const first = await watches.next();
  assert.equal(first.req.query.get('sendInitialEvents'), 'true');
  assert.equal(first.req.query.get('resourceVersionMatch'), 'NotOlderThan');
  assert.equal(first.req.query.get('allowWatchBookmarks'), 'true');
  assert.equal(first.req.query.get('resourceVersion'), null, 'the newest state, consistently read');
  startWatch(first.res);
  first.res.end(
    line('ADDED', obj('a', '5')) + line('ADDED', obj('b', '6')) + initialEventsEnd('10') + line('ADDED', obj('c', '11'))
  );
  assert.deepEqual(await events, ['LISTED a', 'LISTED b', 'LISTED_DONE 10', 'ADDED c']);

  const more = take(it, 1);
  const second = await watches.next();
  assert.equal(second.req.query.get('sendInitialEvents'), null, 'the listing is done: the watch resumes');
  assert.equal(second.req.query.get('resourceVersion'), '11');
  startWatch(second.res);
  second.res.write(line('MODIFIED', obj('a', '12')));
  assert.deepEqual(await more, ['MODIFIED a']);
  assert.deepEqual(client.requestCounts(), { watch: 2 });
  assert.deepEqual(refusals, []);
});

test('a streamed re-list after 410 deletes, synthetically, what is no longer there', async (t) => {
  const { watches, it } = await streamingWatch(t);
  const events = take(it, 3);
  const first = await watches.next();
  startWatch(first.res);
  first.res.end(line('ADDED', obj('a', '5')) + line('ADDED', obj('b', '6')) + initialEventsEnd('10') +
    line('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }));
  assert.deepEqual(await events, ['LISTED a', 'LISTED b', 'LISTED_DONE 10']);

  const relisted = take(it, 3);
  const second = await watches.next();
  assert.equal(second.req.query.get('sendInitialEvents'), 'true', 'streamed again');
  startWatch(second.res);
  second.res.write(line('ADDED', obj('b', '20')) + initialEventsEnd('30'));
  assert.deepEqual(await relisted, ['LISTED b', 'DELETED* a', 'LISTED_DONE 30']);
});

test('a server that refuses initial events (422) is listed in pages, from then on', async (t) => {
  const { watches, it, client, refusals, server } = await streamingWatch(t);
  const events = take(it, 2);
  const first = await watches.next();
  const refusal = { kind: 'Status', code: 422, message: 'sendInitialEvents is forbidden for watch' };
  sendJson(first.res, 422, refusal);
  assert.deepEqual(await events, ['LISTED a', 'LISTED_DONE 10']);
  assert.equal(refusals.length, 1);
  assert.match(String(refusals[0]), /sendInitialEvents is forbidden/);

  // A later re-list does not ask again.
  const relisted = take(it, 2);
  const second = await watches.next();
  assert.equal(second.req.query.get('resourceVersion'), '10', 'watched from the paged listing');
  assert.equal(second.req.query.get('sendInitialEvents'), null);
  startWatch(second.res);
  second.res.end(line('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }));
  assert.deepEqual(await relisted, ['LISTED a', 'LISTED_DONE 10']);
  assert.equal(server.received.filter((r) => r.query.get('sendInitialEvents')).length, 1);
  assert.deepEqual(client.requestCounts(), { watch: 2, list: 2 });
});

/** The events until the end of the next listing, and the watch request that follows it. */
async function throughListing(it: AsyncIterator<StreamEvent<KubeObject>>, watches: Arrivals) {
  const events: string[] = [];
  while (events.at(-1)?.startsWith('LISTED_DONE') !== true) events.push(...await take(it, 1));
  const next = take(it, 1);
  return { events, next, watch: await watches.next() };
}

test('an error in place of initial events, or a stream that ends before their bookmark, is a refusal', async (t) => {
  const cases = [
    [line('ERROR', { kind: 'Status', code: 500, message: 'storage feature RequestWatchProgress is off' }), []],
    [line('ADDED', obj('a', '5')), ['LISTED a']],
  ] as const;
  for (const [answer, streamed] of cases) {
    const { watches, it, refusals } = await streamingWatch(t);
    const listing = throughListing(it, watches);
    const first = await watches.next();
    startWatch(first.res);
    first.res.end(answer);
    const { events, watch } = await listing;
    assert.deepEqual(events, [...streamed, 'LISTED a', 'LISTED_DONE 10']);
    assert.equal(watch.req.query.get('resourceVersion'), '10', 'watched from the paged listing');
    assert.equal(refusals.length, 1);
  }
});

test('a server that ignores the request for initial events and goes quiet is listed in pages', async (t) => {
  const { watches, it, refusals } = await streamingWatch(t, [obj('a', '5')], 0.2);
  const listing = throughListing(it, watches);
  const first = await watches.next();
  startWatch(first.res);
  first.res.write(line('ADDED', obj('a', '5')) + bookmark('7'));
  const { events, watch } = await listing;
  assert.deepEqual(events, ['LISTED a', 'LISTED a', 'LISTED_DONE 10'], 'a bookmark within initial events is not one');
  assert.equal(watch.req.query.get('resourceVersion'), '10');
  assert.equal(refusals.length, 1);
});

test('a consumer that holds an initial event is not the server going quiet', async (t) => {
  const { watches, it, refusals } = await streamingWatch(t, [obj('a', '5')], 0.2);
  const first = take(it, 1);
  const stream = await watches.next();
  startWatch(stream.res);
  stream.res.write(line('ADDED', obj('a', '5')) + line('ADDED', obj('b', '6')) + initialEventsEnd('10'));
  assert.deepEqual(await first, ['LISTED a']);
  // Held for longer than the silence allowed within initial events: the scenario itself, not a wait for something.
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.deepEqual(await take(it, 2), ['LISTED b', 'LISTED_DONE 10']);
  assert.deepEqual(refusals, []);
});

test('a 404 or a 403 in answer to initial events is what it is for any request, not a refusal', async (t) => {
  for (const code of [404, 403]) {
    const { watches, it, refusals, client } = await streamingWatch(t);
    const failed = it.next();
    const first = await watches.next();
    sendJson(first.res, code, { kind: 'Status', code, message: `answered ${code}` });
    await assert.rejects(failed, (e: Error) => e.message.includes(`answered ${code}`));
    assert.deepEqual(refusals, []);
    assert.deepEqual(client.requestCounts(), { watch: 1 }, 'no paged listing after it');
  }
});
