/**
 * The continuous watch against a real API server: events in order, bookmarks, pagination of the
 * initial listing, and recovery from a restarted kube-apiserver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  KubeClient,
  createObject,
  deleteObject,
  listObjects,
  patchObject,
  watchStream,
} from '../../../runtime/kube/index.ts';
import type { StreamEvent } from '../../../runtime/kube/index.ts';
import { ConfigMaps, Namespaces } from '../../../runtime/structs/builtins.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { delta, requestCounts } from '../metrics.ts';


const cluster = useCluster({ client: { errorBackoffs: [0.2, 0.5, 1, 1, 2, 3, 5, 8] } });

async function namespace(name: string): Promise<string> {
  await createObject(cluster.client, Namespaces, { metadata: { name } });
  return name;
}

/** Pulls events until `done` says so; the whole test has a timeout, so a missing event fails it. */
async function until<T extends KubeObject>(
  it: AsyncIterator<StreamEvent<T>>,
  done: (e: StreamEvent<T>) => boolean,
  seen: StreamEvent<T>[] = [],
): Promise<StreamEvent<T>[]> {
  for (;;) {
    const r = await it.next();
    if (r.done) throw new Error(`the stream ended; seen: ${seen.map((e) => e.type).join(', ')}`);
    seen.push(r.value);
    if (done(r.value)) return seen;
  }
}

function nameOf(e: StreamEvent<KubeObject>): string {
  return 'object' in e ? `${e.type} ${e.object.metadata?.name}` : e.type;
}

test('a watch sees ADDED, MODIFIED and DELETED in order, and bookmarks arrive', { timeout: 60_000 }, async () => {
  const ns = await namespace('watch-order');
  const controller = new AbortController();
  // A short server timeout makes the API server send a bookmark ~2 s before it ends each stream.
  const it = watchStream(cluster.client, KopfExample, { namespace: ns, serverTimeout: 5, signal: controller.signal })[
    Symbol.asyncIterator
  ]();
  await until(it, (e) => e.type === 'LISTED_DONE');

  const ref = { namespace: ns, name: 'kex-w' };
  const pending = until(it, (e) => e.type === 'DELETED');
  await createObject(cluster.client, KopfExample, { metadata: { name: 'kex-w', namespace: ns }, spec: { field: 'a' } });
  await patchObject(cluster.client, KopfExample, ref, { spec: { field: 'b' } });
  await patchObject(cluster.client, KopfExample, ref, { status: { done: true } }, { subresource: 'status' });
  await deleteObject(cluster.client, KopfExample, ref);
  // The API server may answer a resumed watch with 410 Gone at any time, and the stream lists again
  // (seen under load when the stream's 5 s ended just before the create): a listing with nothing of
  // the object in it changes nothing of what the watch must see of the object.
  const events = (await pending).filter((e) => e.type !== 'BOOKMARK' && e.type !== 'LISTED_DONE');
  assert.deepEqual(events.map(nameOf), ['ADDED kex-w', 'MODIFIED kex-w', 'MODIFIED kex-w', 'DELETED kex-w']);
  const modified = events[1];
  assert.ok(modified.type === 'MODIFIED' && modified.object.spec?.field === 'b');

  const bookmark = (await until(it, (e) => e.type === 'BOOKMARK')).at(-1);
  assert.ok(bookmark?.type === 'BOOKMARK' && /^\d+$/.test(bookmark.resourceVersion), JSON.stringify(bookmark));
  controller.abort();
  assert.deepEqual(await it.next(), { value: undefined, done: true });
});

test('metadata only: listed and watched objects carry their metadata, not their spec', {
  timeout: 60_000,
}, async () => {
  const ns = await namespace('watch-metadata');
  const create = (name: string) => createObject(cluster.client, KopfExample,
    { metadata: { name, namespace: ns, labels: { a: '1' } }, spec: { field: 'a' } });
  await create('kex-listed');
  const controller = new AbortController();
  const options = { namespace: ns, signal: controller.signal, metadataOnly: true };
  const it = watchStream(cluster.client, KopfExample, options)[Symbol.asyncIterator]();
  const listed = await until(it, (e) => e.type === 'LISTED_DONE');
  await create('kex-watched');
  const added = (await until(it, (e) => e.type === 'ADDED')).at(-1);
  controller.abort();
  for (const event of [listed[0], added]) {
    assert.ok(event && 'object' in event, JSON.stringify(event));
    assert.equal(event.object.kind, 'PartialObjectMetadata');
    assert.deepEqual(event.object.metadata?.labels, { a: '1' });
    assert.ok(event.object.metadata?.uid);
    assert.equal(event.object.spec, undefined);
  }
});

test('the initial listing is paginated and complete; so is listObjects', { timeout: 60_000 }, async () => {
  const ns = await namespace('paging');
  const names = Array.from({ length: 23 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
  await Promise.all(
    names.map(
      (name) => createObject(cluster.client, ConfigMaps, { metadata: { name, namespace: ns }, data: { i: name } })
    )
  );

  const pagedClient = KubeClient.fromKubeConfig(cluster.cp.kubeconfig, { listPageSize: 5 });
  try {
    const listed = await listObjects(pagedClient, ConfigMaps, { namespace: ns, labelSelector: undefined });
    assert.deepEqual(listed.items.map((o) => o.metadata?.name).filter((n) => n?.startsWith('cm-')).sort(), names);
    assert.ok(listed.items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1'));
    const pages = pagedClient.requestCounts().list ?? 0;
    assert.ok(pages >= 5, `${pages} pages of 5 for ${listed.items.length} objects`);

    const controller = new AbortController();
    const seen = await until(
      watchStream(
        pagedClient, ConfigMaps, { namespace: ns, pageSize: 7, streamingList: false, signal: controller.signal },
      )[Symbol.asyncIterator](),
      (e) => e.type === 'LISTED_DONE',
    );
    controller.abort();
    const listedNames =
      seen.filter((e) => e.type === 'LISTED').map((e) => 'object' in e && e.object.metadata?.name).filter(
        (n) => typeof n === 'string' && n.startsWith('cm-')
      );
    assert.deepEqual(listedNames.sort(), names);
  } finally {
    pagedClient.close();
  }
});

test('the initial listing is streamed as the initial events of the watch: the API server counts no LIST', {
  timeout: 60_000,
}, async () => {
  const ns = await namespace('streamed');
  const names = Array.from({ length: 12 }, (_, i) => `kex-${String(i).padStart(2, '0')}`);
  const create = (name: string) => createObject(cluster.client, KopfExample, { metadata: { name, namespace: ns } });
  await Promise.all(names.map(create));
  const client = KubeClient.fromKubeConfig(cluster.cp.kubeconfig, { streamingLists: true });
  try {
    const before = await requestCounts(cluster.cp.credentials, 'kopfexamples');
    for (const metadataOnly of [false, true]) {
      const controller = new AbortController();
      const options = { namespace: ns, metadataOnly, signal: controller.signal };
      const it = watchStream(client, KopfExample, options)[Symbol.asyncIterator]();
      const listed = await until(it, (e) => e.type === 'LISTED_DONE');
      assert.deepEqual(listed.filter((e) => e.type === 'LISTED').map((e) => nameOf(e).split(' ')[1]).sort(), names);
      const done = listed.at(-1);
      assert.ok(done?.type === 'LISTED_DONE' && Number(done.resourceVersion) > 0, JSON.stringify(done));
      // The stream goes on from there: a change made now is its next event.
      const change = { spec: { field: metadataOnly ? 'm' : 'f' } };
      await patchObject(cluster.client, KopfExample, { namespace: ns, name: 'kex-03' }, change);
      assert.equal(nameOf((await until(it, (e) => e.type === 'MODIFIED')).at(-1)!), 'MODIFIED kex-03');
      controller.abort();
    }
    const lists = delta(before, await requestCounts(cluster.cp.credentials, 'kopfexamples'), ['LIST']);
    assert.equal(lists.total, 0, 'no LIST request reached the API server');
    assert.deepEqual(client.requestCounts(), { watch: 2 });

    // The same watch with streamed listings off (the default) lists: the count above is one that can fail.
    const paged = KubeClient.fromKubeConfig(cluster.cp.kubeconfig, { streamingLists: false });
    try {
      const controller = new AbortController();
      const it = watchStream(paged, KopfExample, { namespace: ns, signal: controller.signal })[Symbol.asyncIterator]();
      await until(it, (e) => e.type === 'LISTED_DONE');
      controller.abort();
    } finally {
      paged.close();
    }
    const after = delta(before, await requestCounts(cluster.cp.credentials, 'kopfexamples'), ['LIST']);
    assert.equal(after.total, 1);
  } finally {
    client.close();
  }
});

test('kube-apiserver restarted mid-watch: the watch resumes and the final object set matches', {
  timeout: 120_000
}, async () => {
  const ns = await namespace('restart');
  const own = KubeClient.fromKubeConfig(cluster.cp.kubeconfig, { errorBackoffs: [0.2, 0.5, 1, 1, 2, 3, 5, 8] });
  const controller = new AbortController();
  const it = watchStream(own, KopfExample, { namespace: ns, signal: controller.signal })[Symbol.asyncIterator]();
  const state = new Map<string, KubeObject>();
  const apply = (e: StreamEvent<KubeObject>) => {
    if (e.type === 'LISTED' || e.type === 'ADDED' || e.type === 'MODIFIED')
      state.set(e.object.metadata?.name ?? '', e.object);
    if (e.type === 'DELETED') state.delete(e.object.metadata?.name ?? '');
  };
  try {
    (await until(it, (e) => e.type === 'LISTED_DONE')).forEach(apply);
    const watched = until(it, (e) => e.type === 'ADDED' && e.object.metadata?.name === 'before-2');
    await createObject(cluster.client, KopfExample, { metadata: { name: 'before-1', namespace: ns } });
    await createObject(cluster.client, KopfExample, { metadata: { name: 'before-2', namespace: ns } });
    (await watched).forEach(apply);

    // The consumer keeps asking while the apiserver is down: the watch retries with backoff meanwhile.
    const seen: StreamEvent<KubeObject>[] = [];
    const resumed = until(
      it,
      (e) => (e.type === 'ADDED' || e.type === 'LISTED') && e.object.metadata?.name === 'marker',
      seen,
    );
    await cluster.cp.restartApiServer();
    await createObject(cluster.client, KopfExample, { metadata: { name: 'after-1', namespace: ns } });
    await patchObject(
      cluster.client,
      KopfExample,
      { namespace: ns, name: 'before-1' },
      { spec: { field: 'after the restart' } },
    );
    await deleteObject(cluster.client, KopfExample, { namespace: ns, name: 'before-2' });
    await createObject(cluster.client, KopfExample, { metadata: { name: 'marker', namespace: ns } });
    const expected = (await listObjects(cluster.client, KopfExample, { namespace: ns })).items;

    (await resumed).forEach(apply);
    // If the old resourceVersion was gone after the restart, the marker came in a re-list: finish it.
    if (seen.at(-1)?.type === 'LISTED') (await until(it, (e) => e.type === 'LISTED_DONE')).forEach(apply);

    assert.deepEqual([...state.keys()].sort(), expected.map((o) => o.metadata?.name).sort());
    assert.deepEqual([...state.keys()].sort(), ['after-1', 'before-1', 'marker']);
    assert.equal((state.get('before-1')?.spec as { field?: string } | undefined)?.field, 'after the restart');
    assert.ok((own.requestCounts().watch ?? 0) >= 2, `reconnected: ${JSON.stringify(own.requestCounts())}`);
  } finally {
    controller.abort();
    own.close();
  }
});
