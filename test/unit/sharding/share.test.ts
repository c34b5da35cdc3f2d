/**
 * A ring replica's share (`sharding/share.ts`), with the API faked: only objects seen in the watch
 * are handled; a drain lets the object go (its daemons stopped, its memories dropped) before the
 * acknowledgement is written; a DELETED of an object let go, or of one read back as assigned
 * elsewhere, is no deletion; a read that finds nothing is one; a lost membership lets every object
 * go, so that a late wake-up of one of them runs nothing. An object is run only on the ring's seal
 * of its assignment to this member and incarnation: a label alone (a relabel by anyone else), a
 * seal for another member, or an older seal put back runs nothing. A drain label of any value
 * drains; a failed acknowledgement is logged and tried again, later each time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeClient } from '../../../runtime/kube/index.ts';
import { Logger, LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { Memories } from '../../../runtime/processing/memories.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { RingShare } from '../../../runtime/sharding/share.ts';
import { DRAIN_VALUE, drainLabel, sealAnnotation, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import { RingSeals, type Assignment } from '../../../runtime/sharding/seals.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

const RING = 'r', MEMBER = 'r-1', INCARNATION = 'i-1';
const seals = new RingSeals(RING, Buffer.alloc(32, 5));
const ASSIGNED: Assignment = { state: 'assigned', member: MEMBER, incarnation: INCARNATION, sequence: 1 };

/** An object labelled for `labels`, with the ring's seal of `sealed` (by default: assigned here), or none. */
function body(
  name: string, labels: Record<string, string> = { [shardLabel(RING)]: MEMBER },
  sealed: Assignment | null = ASSIGNED,
): KubeObject {
  const uid = `uid-${name}`;
  const annotations = sealed ? { [sealAnnotation(RING)]: seals.sealAssignment(uid, sealed) } : {};
  return { metadata: { name, namespace: 'ns', uid, labels, annotations, resourceVersion: '1' } };
}

/**
 * A share with a fake client (`answers` by method), and what happened: requests, handled events,
 * released keys, the patches' bodies, the warnings.
 */
function share(answers: { GET?: () => unknown; PATCH?: () => unknown } = {}) {
  const log: string[] = [];
  const patches: unknown[] = [];
  const requeued: string[] = [];
  const request = async (method: 'GET' | 'PATCH', path: string, options?: { body?: unknown }) => {
    log.push(`${method} ${path}`);
    if (method === 'PATCH') patches.push(options?.body);
    const answer = answers[method];
    if (!answer) throw new Error(`no answer for ${method}`);
    return answer();
  };
  const client = {
    request,
    requestBytes: async (method: 'GET' | 'PATCH', path: string, options?: { body?: unknown }) => {
      return Buffer.from(JSON.stringify(await request(method, path, options)));
    },
  } as unknown as KubeClient;
  // The timers and daemons, as the memories' follower: told when an object is let go.
  const spawner = { forget: () => undefined, letGo: async (key: string) => { log.push(`release ${key}`); } };
  const memories = new Memories(() => ({}), [spawner]);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ sinks: [capture.sink] }));
  const warnings = () => capture.records.filter((r) => r.level === 30).map((r) => r.message);
  const parts = {
    client, resource: () => KopfExample, release: memories, logger,
    enqueue: (key: string) => { requeued.push(key); },
  };
  const ring = new RingShare({ ring: RING, member: MEMBER, incarnation: INCARNATION, seals, retryPeriod: 0.01 }, parts);
  const handle = async (event: RawEvent) => { log.push(`handle ${event.type} ${event.object.metadata?.name}`); };
  const feed = async (key: string, event: RawEvent, fromWatch = true) => {
    if (fromWatch) ring.seen(key, event);
    await ring.process(key, event, handle);
  };
  return { ring, log, memories, feed, patches, warnings, requeued };
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
  const draining = body('a', { [shardLabel(RING)]: MEMBER, [drainLabel(RING)]: DRAIN_VALUE });
  const { log, memories, feed } = share({ GET: () => draining, PATCH: () => ({}) });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  memories.recall('uid-a', false);
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining });
  assert.equal(memories.size, 0);
  await feed('uid-a', { kind: 'wakeup', type: 'MODIFIED', object: body('a') }, false);
  await feed('uid-a', { kind: 'event', type: 'DELETED', object: draining });
  assert.deepEqual(log, [
    'handle ADDED a', 'release uid-a', 'GET /apis/kopf.dev/v1/namespaces/ns/kopfexamples/a',
    'PATCH /apis/kopf.dev/v1/namespaces/ns/kopfexamples/a', 'release uid-a',
  ]);
});

test('a DELETED whose object is read back assigned elsewhere is a move; one read as absent is a deletion', async () => {
  let elsewhere = true;
  const there = body('a', { [shardLabel(RING)]: 'r-2' }, { ...ASSIGNED, member: 'r-2', sequence: 2 });
  const { log, feed } = share({ GET: () => (elsewhere ? there : notFound()) });
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

test('a label written by someone else is no move: the object is not run here, and it is logged', async () => {
  const { log, feed, warnings } = share();
  // Relabelled here with no seal, with another member's seal, or with this member's seal of another object.
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: body('a', undefined, null) });
  const elsewhere = body('b', undefined, { ...ASSIGNED, member: 'r-2' });
  await feed('uid-b', { kind: 'event', type: 'MODIFIED', object: elsewhere });
  const copied = body('c');
  copied.metadata!.annotations = body('d').metadata!.annotations;
  await feed('uid-c', { kind: 'event', type: 'MODIFIED', object: copied });
  // Sealed for a former incarnation of this member's name (a restarted replica's old assignments).
  const former = body('e', undefined, { ...ASSIGNED, incarnation: 'old' });
  await feed('uid-e', { kind: 'event', type: 'MODIFIED', object: former });
  assert.deepEqual(log.filter((line) => line.startsWith('handle')), []);
  // Warned of all but the last: that one is this replica's own earlier process's, no one else's write.
  assert.equal(warnings().length, 3);
  assert.match(warnings()[0]!, /without the ring's seal/);
});

test('an object held here and relabelled (its seal replaced) is let go, not run; its seal back runs it', async () => {
  const { log, feed } = share();
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: body('a', undefined, null) });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: body('a') });
  assert.deepEqual(log, ['handle ADDED a', 'release uid-a', 'handle MODIFIED a']);
});

test('an older seal put back after a drain does not bring the object back', async () => {
  const draining = body('a', { [shardLabel(RING)]: MEMBER, [drainLabel(RING)]: DRAIN_VALUE });
  const { log, feed } = share({ GET: () => draining, PATCH: () => ({}) });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining });
  // Someone copies the seal of the assignment that was let go back onto the object, labelled here.
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: body('a') });
  // A newer assignment to this member (sealed by the ring) is run.
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: body('a', undefined, { ...ASSIGNED, sequence: 2 }) });
  assert.deepEqual(log.filter((line) => line.startsWith('handle')), ['handle ADDED a', 'handle MODIFIED a']);
});

test('a drain label of any value drains: the labels are removed and a release is sealed', async () => {
  const draining = body('a', { [shardLabel(RING)]: MEMBER, [drainLabel(RING)]: 'x' });
  const { log, feed, patches } = share({ GET: () => draining, PATCH: () => ({}) });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining });
  assert.ok(log.includes('release uid-a'));
  assert.equal(patches.length, 1);
  const patch = patches[0] as { metadata: { resourceVersion: string; labels: object; annotations: object } };
  assert.equal(patch.metadata.resourceVersion, '1');
  assert.deepEqual(patch.metadata.labels, { [shardLabel(RING)]: null, [drainLabel(RING)]: null });
  const seal = (patch.metadata.annotations as Record<string, string>)[sealAnnotation(RING)];
  assert.deepEqual(seals.openAssignment('uid-a', seal), { ...ASSIGNED, state: 'released' });
});

test('a failed acknowledgement is logged as a warning and tried again, waiting longer each time', async () => {
  const draining = body('a', { [shardLabel(RING)]: MEMBER, [drainLabel(RING)]: DRAIN_VALUE });
  const invalid = () => { throw new ApiError({ status: 422, method: 'PATCH', path: '/x' }); };
  const { feed, warnings, requeued } = share({ GET: () => draining, PATCH: invalid });
  await feed('uid-a', { kind: 'event', type: 'ADDED', object: body('a') });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining });
  await feed('uid-a', { kind: 'event', type: 'MODIFIED', object: draining }, false);
  assert.equal(warnings().length, 2);
  assert.match(warnings()[0]!, /Could not acknowledge the drain of the object \(attempt 1\).*trying again in 0\.01 s/);
  assert.match(warnings()[1]!, /\(attempt 2\).*trying again in 0\.02 s/);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the retries' timers are unref'd: let them fire
  assert.deepEqual(requeued, ['uid-a', 'uid-a']);
});
