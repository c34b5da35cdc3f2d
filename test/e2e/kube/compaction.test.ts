/**
 * A watch whose resourceVersion etcd has compacted away gets 410 Gone and re-lists, without
 * losing objects: deletions missed meanwhile come as synthetic DELETED events.
 * The apiserver runs without its watch cache here, so that watches are served by etcd itself and
 * a compaction is what makes a resourceVersion too old (with the cache, its own window decides).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createObject, deleteObject, listObjects, patchObject, watchStream } from '../../../runtime/kube/index.ts';
import type { StreamEvent } from '../../../runtime/kube/index.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const NS = 'compaction';

const cluster = useCluster({ apiServerArgs: ['--watch-cache=false'], namespace: NS });

/** Compacts etcd's history up to `revision` through its HTTP gateway. */
async function compact(revision: string): Promise<void> {
  const response = await fetch(
    `${cluster.cp.etcdUrl}/v3/kv/compaction`,
    { method: 'POST', body: JSON.stringify({ revision, physical: true }) },
  );
  assert.equal(response.status, 200, await response.text());
}

test('a watch from a compacted resourceVersion re-lists and reports what it missed', { timeout: 60_000 }, async () => {
  for (const name of ['k1', 'k2', 'k3', 'k4'])
    await createObject(cluster.client, KopfExample, { metadata: { name, namespace: NS } });
  const controller = new AbortController();
  // Listed in pages, so that no watch request is open until the consumer asks for more (a streamed
  // listing goes on as the watch itself, which would carry the changes below as events).
  const options = { namespace: NS, streamingList: false, signal: controller.signal };
  const it = watchStream(cluster.client, KopfExample, options)[Symbol.asyncIterator]();
  const state = new Map<string, KubeObject>();
  const events: string[] = [];
  const pull = async (until: (e: StreamEvent<KubeObject>) => boolean) => {
    for (;;) {
      const r = await it.next();
      assert.ok(!r.done, 'the stream ended');
      const e = r.value;
      events.push(
        'object' in e ? `${e.type}${e.type === 'DELETED' && e.synthetic ? '*' : ''} ${e.object.metadata?.name}` : e.type
      );
      if (e.type === 'LISTED' || e.type === 'ADDED' || e.type === 'MODIFIED')
        state.set(e.object.metadata?.name ?? '', e.object);
      if (e.type === 'DELETED') state.delete(e.object.metadata?.name ?? '');
      if (until(e)) return;
    }
  };
  try {
    await pull((e) => e.type === 'LISTED_DONE');
    assert.deepEqual([...state.keys()].sort(), ['k1', 'k2', 'k3', 'k4']);

    // The consumer does not ask for more meanwhile, so the watch request is not yet made.
    await patchObject(cluster.client, KopfExample, { namespace: NS, name: 'k1' }, { spec: { field: 'changed' } });
    await deleteObject(cluster.client, KopfExample, { namespace: NS, name: 'k2' });
    await deleteObject(cluster.client, KopfExample, { namespace: NS, name: 'k3' });
    const latest = await createObject(cluster.client, KopfExample, { metadata: { name: 'k5', namespace: NS } });
    await compact(latest.metadata?.resourceVersion ?? '');

    events.length = 0;
    await pull((e) => e.type === 'LISTED_DONE');
    assert.deepEqual(events.filter((e) => !e.startsWith('LISTED ')), ['DELETED* k2', 'DELETED* k3', 'LISTED_DONE']);
    assert.deepEqual(events.filter((e) => e.startsWith('LISTED ')).sort(), ['LISTED k1', 'LISTED k4', 'LISTED k5']);
    const server = (await listObjects(cluster.client, KopfExample, { namespace: NS })).items;
    assert.deepEqual([...state.keys()].sort(), server.map((o) => o.metadata?.name).sort());
    assert.equal((state.get('k1')?.spec as { field?: string } | undefined)?.field, 'changed');

    // And the watch goes on from the new listing.
    const next = pull((e) => e.type === 'ADDED');
    await createObject(cluster.client, KopfExample, { metadata: { name: 'k6', namespace: NS } });
    await next;
    assert.ok(state.has('k6'));
    assert.equal(cluster.client.requestCounts().list, 3, 'two listings by the watch, one by the test');
  } finally {
    controller.abort();
  }
});
