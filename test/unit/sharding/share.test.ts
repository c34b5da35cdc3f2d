/**
 * A ring replica's share (`pipeline/share.ts`), with the API faked: only objects seen in the watch
 * are handled; a drain lets the object go (its daemons stopped, its memories dropped) before the
 * acknowledgement is written; a DELETED of an object let go, or of one read back as assigned
 * elsewhere, is no deletion; a read that finds nothing is one; a lost membership lets every object
 * go, so that a late wake-up of one of them runs nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeClient } from '../../../runtime/kube/index.ts';
import { Logger, LogConfig } from '../../../runtime/logging/index.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { Memories } from '../../../runtime/processing/memories.ts';
import type { Spawner } from '../../../runtime/daemons/spawning.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { RingShare } from '../../../runtime/pipeline/share.ts';
import { DRAIN_VALUE, drainLabel, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

const RING = 'r', MEMBER = 'r-1';

function body(name: string, labels: Record<string, string> = { [shardLabel(RING)]: MEMBER }): KubeObject {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels } };
}

/** A share with a fake client (`answers` by method), and what happened: requests, handled events, released keys. */
function share(answers: { GET?: () => unknown; PATCH?: () => unknown } = {}) {
  const log: string[] = [];
  const client = {
    request: async (method: 'GET' | 'PATCH', path: string) => {
      log.push(`${method} ${path}`);
      const answer = answers[method];
      if (!answer) throw new Error(`no answer for ${method}`);
      return answer();
    },
  } as unknown as KubeClient;
  const spawner = { release: async (key: string) => { log.push(`release ${key}`); } } as unknown as Spawner;
  const memories = new Memories(() => ({}));
  const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [] }));
  const parts = {
    client, resource: () => KopfExample, spawner, memories, indexers: new OperatorIndexers([]), logger,
    enqueue: () => undefined,
  };
  const ring = new RingShare({ ring: RING, member: MEMBER, retryPeriod: 1 }, parts);
  const handle = async (event: RawEvent) => { log.push(`handle ${event.type} ${event.object.metadata?.name}`); };
  const feed = async (key: string, event: RawEvent, fromWatch = true) => {
    if (fromWatch) ring.seen(key, event);
    await ring.process(key, event, handle);
  };
  return { ring, log, memories, feed };
}

const notFound = () => { throw new ApiError({ status: 404, method: 'GET', path: '/x' }); };

test('the watch selects the member\'s label', () => {
  assert.equal(share().ring.selector, `${shardLabel(RING)}=${MEMBER}`);
});

test('an object seen in the watch is handled; a wake-up of one never seen is not', async () => {
  const { log, feed } = share();
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-b', { kind: 'wakeup', type: 'MODIFIED', object: body('b') }, false);
  assert.deepEqual(log, ['handle ADDED a']);
});

test('a drain lets the object go before the acknowledgement; later wake-ups and its DELETED run nothing', async () => {
  const { log, memories, feed } = share({ PATCH: () => ({}) });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  memories.recall('uid-a', false);
  const draining = body('a', { [shardLabel(RING)]: MEMBER, [drainLabel(RING)]: DRAIN_VALUE });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining });
  assert.equal(memories.size, 0);
  await feed('uid-a', { kind: 'wakeup', type: 'MODIFIED', object: body('a') }, false);
  await feed('uid-a', { kind: 'event', type: 'DELETED', object: draining });
  assert.deepEqual(log, [
    'handle ADDED a', 'release uid-a', 'PATCH /apis/kopf.dev/v1/namespaces/ns/kopfexamples/a', 'release uid-a',
  ]);
});

test('a DELETED whose object is read back assigned elsewhere is a move; one read as absent is a deletion', async () => {
  let elsewhere = true;
  const { log, feed } = share({ GET: () => (elsewhere ? body('a', { [shardLabel(RING)]: 'r-2' }) : notFound()) });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-a', { kind: 'event', type: 'DELETED', object: body('a') });
  elsewhere = false;
  await feed('uid-b', { kind: 'event', type: 'ADDED', object: body('b') });
  await feed('uid-b', { kind: 'event', type: 'DELETED', object: body('b') });
  assert.deepEqual(log, [
    'handle ADDED a', 'GET /apis/kopf.dev/v1/namespaces/ns/kopfexamples/a', 'release uid-a',
    'handle ADDED b', 'GET /apis/kopf.dev/v1/namespaces/ns/kopfexamples/b', 'handle DELETED b',
  ]);
});

test('a lost membership lets every object go: a late wake-up runs nothing until the watch shows it again', async () => {
  const { ring, log, feed } = share();
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await ring.releaseAll();
  await feed('uid-a', { kind: 'wakeup', type: 'MODIFIED', object: body('a') }, false);
  await feed('uid-a', { kind: 'event', type: null, object: body('a') });
  assert.deepEqual(log, ['handle ADDED a', 'release uid-a', 'handle null a']);
});
