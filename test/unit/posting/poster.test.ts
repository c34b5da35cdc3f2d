import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import { captureLogs } from '../../../runtime/logging/sinks.ts';
import type { EventBody } from '../../../runtime/posting/events.ts';
import { EventPoster, type EventPosterOptions, type PostEvent } from '../../../runtime/posting/poster.ts';

const ref = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'kex1', uid: 'u-1', namespace: 'ns1' };
const ev = (reason: string) => ({ ref, type: 'Normal', reason, message: `about ${reason}` });

/** A post function whose calls stay open until the test settles them. */
function gatedPost() {
  const calls: { body: EventBody; signal: AbortSignal; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const waiters: (() => void)[] = [];
  const post: PostEvent = (body, signal) => new Promise<void>((resolve, reject) => {
    calls.push({ body, signal, resolve, reject });
    waiters.splice(0).forEach((w) => w());
  });
  const called = (n: number) => new Promise<void>((resolve) => {
    const check = () => (calls.length >= n ? resolve() : waiters.push(check));
    check();
  });
  return { post, calls, called };
}

function makePoster(post: PostEvent, options: Partial<EventPosterOptions> = {}) {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ sinks: [capture.sink] }), 'kopf.posting');
  const poster = new EventPoster({ post, settings: defaultSettings(), logger, ...options });
  return { poster, capture };
}

test('queued events are posted in the background, and idle() tells when all are out', async () => {
  const posted: EventBody[] = [];
  const { poster } = makePoster(async (body) => { posted.push(body); });
  assert.equal(poster.enqueue(ev('A')), true);
  assert.equal(poster.enqueue(ev('B')), true);
  await poster.idle();
  assert.deepEqual(posted.map((b) => b.reason).sort(), ['A', 'B']);
  assert.deepEqual(poster.stats, { posted: 2, failed: 0, dropped: 0 });
  assert.equal(poster.pending, 0);
});

test('timestamps are those of enqueueing, not of posting', async () => {
  let now = Date.UTC(2026, 0, 1, 0, 0, 0, 0);
  const gate = gatedPost();
  const { poster } = makePoster(gate.post, { clock: () => now });
  poster.enqueue(ev('A'));
  now += 60_000;
  await gate.called(1);
  gate.calls[0].resolve();
  await poster.idle();
  assert.equal(gate.calls[0].body.eventTime, '2026-01-01T00:00:00.000000+00:00');
});

test('no more than `concurrency` posts are in flight at once', async () => {
  const gate = gatedPost();
  const { poster } = makePoster(gate.post, { concurrency: 2 });
  for (const r of ['A', 'B', 'C', 'D', 'E']) poster.enqueue(ev(r));
  await gate.called(2);
  await new Promise((r) => setImmediate(r));
  assert.equal(gate.calls.length, 2);
  assert.equal(poster.pending, 5);
  gate.calls[0].resolve();
  await gate.called(3);
  await new Promise((r) => setImmediate(r));
  assert.equal(gate.calls.length, 3);
  for (let i = 1; i < 5; i++) {
    await gate.called(i + 1);
    gate.calls[i].resolve();
  }
  await poster.idle();
  assert.deepEqual(gate.calls.map((c) => c.body.reason), ['A', 'B', 'C', 'D', 'E']);
});

test('a full queue drops new events with one warning, and reports the count once it drains', async () => {
  const gate = gatedPost();
  const { poster, capture } = makePoster(gate.post, { capacity: 2, concurrency: 1 });
  poster.enqueue(ev('A')); // taken at once: in flight, not waiting
  await gate.called(1);
  assert.equal(poster.enqueue(ev('B')), true);
  assert.equal(poster.enqueue(ev('C')), true);
  assert.equal(poster.enqueue(ev('D')), false);
  assert.equal(poster.enqueue(ev('E')), false);
  assert.deepEqual(
    capture.messages(),
    ['Too many events are waiting to be posted (2); new ones are dropped until the queue drains.'],
  );
  gate.calls[0].resolve();
  await gate.called(2); gate.calls[1].resolve();
  await gate.called(3); gate.calls[2].resolve();
  await poster.idle();
  assert.deepEqual(gate.calls.map((c) => c.body.reason), ['A', 'B', 'C']);
  assert.deepEqual(poster.stats, { posted: 3, failed: 0, dropped: 2 });
  assert.equal(capture.messages()[1], 'Dropped 2 events while the queue was full.');
});

test('a failed post is dropped with a warning; the queue goes on', async () => {
  let n = 0;
  const { poster, capture } = makePoster(async () => {
    if (n++ === 0) throw new Error('events is forbidden: User "op" cannot create resource "events"');
  }, { concurrency: 1 });
  poster.enqueue({ ref, type: 'Warning', reason: 'First', message: 'one' });
  poster.enqueue(ev('Second'));
  await poster.idle();
  assert.deepEqual(poster.stats, { posted: 1, failed: 1, dropped: 0 });
  assert.deepEqual(capture.messages(), [
    'Failed to post an event. Ignoring and continuing. events is forbidden: User "op" cannot create resource "events". '
    + 'Event: type="Warning", reason="First", message="one".',
  ]);
  assert.equal(capture.records[0].level, 30);
});

test('events about core v1 Events are skipped silently', async () => {
  const posted: EventBody[] = [];
  const { poster, capture } = makePoster(async (body) => { posted.push(body); });
  assert.equal(
    poster.enqueue(
      {
        ref: { apiVersion: 'v1', kind: 'Event', name: 'x.1', namespace: 'ns1' },
        type: 'Normal',
        reason: 'R',
        message: '',
      }
    ),
    false,
  );
  await poster.idle();
  assert.deepEqual(posted, []);
  assert.deepEqual(capture.messages(), []);
});

test('cluster-scoped objects use the default namespace, which may be computed late', async () => {
  const posted: EventBody[] = [];
  let ns: string | undefined;
  const { poster } = makePoster(async (body) => { posted.push(body); }, { defaultNamespace: () => ns });
  const clusterRef = { apiVersion: 'v1', kind: 'Namespace', name: 'nsx', uid: 'u-2' };
  poster.enqueue({ ref: clusterRef, type: 'Normal', reason: 'R', message: '' });
  await poster.idle();
  ns = 'operators';
  poster.enqueue({ ref: clusterRef, type: 'Normal', reason: 'R', message: '' });
  await poster.idle();
  assert.deepEqual(posted.map((b) => b.metadata.namespace), ['default', 'operators']);
});

test('settings are read when posting, so startup handlers can still change them', async () => {
  const posted: EventBody[] = [];
  const { poster } = makePoster(async (body) => { posted.push(body); });
  poster.settings.posting.reportingInstance = 'changed-later';
  poster.enqueue(ev('A'));
  await poster.idle();
  assert.equal(posted[0].reportingInstance, 'changed-later');
});

test('close() drains what is queued, then refuses new events', async () => {
  const gate = gatedPost();
  const { poster, capture } = makePoster(gate.post, { concurrency: 1 });
  poster.enqueue(ev('A'));
  poster.enqueue(ev('B'));
  const closing = poster.close(10);
  assert.equal(poster.enqueue(ev('C')), false);
  await gate.called(1); gate.calls[0].resolve();
  await gate.called(2); gate.calls[1].resolve();
  await closing;
  assert.deepEqual(gate.calls.map((c) => c.body.reason), ['A', 'B']);
  assert.deepEqual(poster.stats, { posted: 2, failed: 0, dropped: 1 });
  assert.deepEqual(capture.messages(), []);
});

test('close() gives up after its timeout: aborts posts in flight, drops the rest, warns', async () => {
  const gate = gatedPost();
  const { poster, capture } = makePoster((body, signal) => {
    const pending = gate.post(body, signal);
    signal.addEventListener('abort', () => gate.calls.find((c) => c.body === body)?.reject(signal.reason));
    return pending;
  }, { concurrency: 1 });
  for (const r of ['A', 'B', 'C']) poster.enqueue(ev(r));
  await gate.called(1);
  await poster.close(0.05);
  assert.equal(gate.calls[0].signal.aborted, true);
  assert.deepEqual(capture.messages(), ['3 events were not posted within 0.05 seconds of stopping; they are dropped.']);
  await poster.idle();
  assert.deepEqual(poster.stats, { posted: 0, failed: 0, dropped: 3 });
  assert.equal(gate.calls.length, 1);
});

test('nonsense limits are refused', () => {
  assert.throws(() => makePoster(async () => {}, { concurrency: 0 }), RangeError);
  assert.throws(() => makePoster(async () => {}, { capacity: 0 }), RangeError);
});
