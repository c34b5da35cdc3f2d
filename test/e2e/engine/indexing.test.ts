/**
 * Indexes end to end on a real control plane: an index of ConfigMaps follows their creation,
 * changes, relabelling out of the filter and deletion, and a handler of another resource reads
 * it; objects that exist before the operator starts are all indexed before any resource handler
 * runs, even with fewer workers than objects; two operators with one registry keep their own indexes,
 * which their cleanup handlers see too.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout } from 'node:timers/promises';
import { createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { ConfigMaps } from '../../../runtime/structs/builtins.ts';
import type { Index, Indices } from '../../../runtime/indices/indices.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from './support.ts';

const NAMESPACE = 'default';
const OTHER = 'ix-other';
const cluster = useCluster({ namespace: OTHER });

/** Values pushed by handlers, and a wait for the first (past or future) one that matches. */
function observed<T>() {
  const items: T[] = [];
  const waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];
  return {
    items,
    push(item: T): void {
      items.push(item);
      for (const waiter of [...waiters]) {
        if (waiter.match(item)) { waiters.splice(waiters.indexOf(waiter), 1); waiter.resolve(item); }
      }
    },
    next(match: (item: T) => boolean, what: string): Promise<T> {
      const found = items.find(match);
      if (found !== undefined) return Promise.resolve(found);
      const timeout = AbortSignal.timeout(60_000);
      return new Promise<T>((resolve, reject) => {
        waiters.push({ match, resolve });
        const failure = () => new Error(`Not seen in 60 s: ${what}; seen: ${JSON.stringify(items)}`);
        timeout.addEventListener('abort', () => reject(failure()));
      });
    },
  };
}

/** An index as sorted plain data: [key, sorted values]. */
function dump(index: Index<string, string>): Array<[string, string[]]> {
  const entries = [...index].map(([key, store]): [string, string[]] => [key, [...store].sort()]);
  return entries.sort(([a], [b]) => a.localeCompare(b));
}

/** Deletes the objects after the test, releasing finalizers first; absent ones are fine. */
type Ref = { name: string; namespace?: string };

function removeAfter(t: TestContext, resource: ResourceDescriptor, refs: Ref[]): void {
  t.after(async () => {
    for (const { name, namespace = NAMESPACE } of refs) {
      const ref = { name, namespace };
      await patchObject(cluster.client, resource, ref, { metadata: { finalizers: null } }).catch(() => undefined);
      await deleteObject(cluster.client, resource, ref).catch(() => undefined);
    }
  });
}

function configMap(name: string, labels: Record<string, string>, data?: Record<string, string>): KubeObject {
  return { metadata: { name, namespace: NAMESPACE, labels }, ...(data && { data }) };
}

test('an index follows changes, relabelling and deletion; a handler of another resource reads it', async (t) => {
  const names = ['ix-a', 'ix-b', 'ix-c'];
  removeAfter(t, ConfigMaps, names.map((name) => ({ name })));
  removeAfter(t, KopfExample, [{ name: 'ix-reader' }]);
  type Seen = { name: string; type: string | null; value?: string; app?: string; filter?: string };
  const indexed = observed<Seen>();
  const reads = observed<{ field: string; index: Array<[string, string[]]> }>();
  const registry = new OperatorRegistry();
  const byApp = registry.on.index(ConfigMaps, function by_app({ labels, body }) {
    return { [labels.app ?? '']: body.data?.value ?? '' };
  }, { labels: { indexed: 'yes' } });
  // Event handlers run after the event's indexing: when one has seen an event, the index shows it.
  registry.on.event(ConfigMaps, function cm_seen({ name, type, body, labels }) {
    indexed.push({ name, type, value: body.data?.value, app: labels.app, filter: labels.indexed });
  }, { labels: { ix: 'test' } });
  const readIndex = (field: string | undefined, indices: Indices) => {
    reads.push({ field: field ?? '', index: dump(indices.get(byApp)) });
  };
  registry.on.create(KopfExample, function read_on_create({ spec, indices }) { readIndex(spec.field, indices); });
  registry.on.update(KopfExample, function read_on_update({ spec, indices }) { readIndex(spec.field, indices); });

  await withOperator(cluster, registry, async () => {
    const ref = (name: string) => ({ namespace: NAMESPACE, name });
    const cm = (name: string, app: string, value: string) =>
      configMap(name, { ix: 'test', indexed: 'yes', app }, { value });
    let step = 0;
    /** Makes the KopfExample's update handler read the index now, and returns what it read. */
    const read = async () => {
      const field = `step-${++step}`;
      await patchObject(cluster.client, KopfExample, ref('ix-reader'), { spec: { field } });
      return (await reads.next((r) => r.field === field, `the index read at ${field}`)).index;
    };
    await createObject(cluster.client, KopfExample, { metadata: ref('ix-reader'), spec: { field: 'step-0' } });
    assert.deepEqual((await reads.next((r) => r.field === 'step-0', 'the creation')).index, []);

    await createObject(cluster.client, ConfigMaps, cm('ix-a', 'web', '1'));
    await createObject(cluster.client, ConfigMaps, cm('ix-b', 'web', '2'));
    await createObject(cluster.client, ConfigMaps, cm('ix-c', 'db', '3'));
    for (const name of names) await indexed.next((e) => e.name === name, `${name} indexed`);
    assert.deepEqual(await read(), [['db', ['3']], ['web', ['1', '2']]]);

    await patchObject(cluster.client, ConfigMaps, ref('ix-a'), { data: { value: '5' } });
    await indexed.next((e) => e.name === 'ix-a' && e.value === '5', 'ix-a changed');
    assert.deepEqual(await read(), [['db', ['3']], ['web', ['2', '5']]], 'the value is replaced');

    await patchObject(cluster.client, ConfigMaps, ref('ix-a'), { metadata: { labels: { app: 'api' } } });
    await indexed.next((e) => e.name === 'ix-a' && e.app === 'api', 'ix-a relabelled');
    assert.deepEqual(await read(), [['api', ['5']], ['db', ['3']], ['web', ['2']]], 'the key follows the label');

    await patchObject(cluster.client, ConfigMaps, ref('ix-b'), { metadata: { labels: { indexed: 'no' } } });
    await indexed.next((e) => e.name === 'ix-b' && e.filter === 'no', 'ix-b relabelled');
    assert.deepEqual(await read(), [['api', ['5']], ['db', ['3']]], 'out of the filter, out of the index');

    await deleteObject(cluster.client, ConfigMaps, ref('ix-c'));
    await indexed.next((e) => e.name === 'ix-c' && e.type === 'DELETED', 'ix-c deleted');
    assert.deepEqual(await read(), [['api', ['5']]], 'deleted, out of the index');
  });
});

test('objects existing at the start are all indexed before any resource handler runs, with few workers', async (t) => {
  const names = Array.from({ length: 12 }, (_, i) => `gate-${i}`);
  removeAfter(t, ConfigMaps, names.map((name) => ({ name })));
  removeAfter(t, KopfExample, [{ name: 'gate-reader' }]);
  for (const name of names) await createObject(cluster.client, ConfigMaps, configMap(name, { gate: 'yes' }));
  const reader = { name: 'gate-reader', namespace: NAMESPACE };
  await createObject(cluster.client, KopfExample, { metadata: reader, spec: {} });

  const sizes = observed<{ who: string; size: number }>();
  const registry = new OperatorRegistry();
  // A slow index function: the listing is over long before its objects are indexed.
  const byGate = registry.on.index(ConfigMaps, async function by_gate({ name }) {
    await setTimeout(20);
    return { all: name };
  }, { labels: { gate: 'yes' } });
  registry.on.event(ConfigMaps, function cm_event({ name, indices }) {
    sizes.push({ who: name, size: indices.get(byGate).get('all')?.size ?? 0 });
  }, { labels: { gate: 'yes' } });
  registry.on.create(KopfExample, function first_sight({ name, indices }) {
    sizes.push({ who: name, size: indices.get(byGate).get('all')?.size ?? 0 });
  });
  const settings = defaultSettings({ posting: { enabled: false }, queueing: { workerLimit: 2 } });
  await withOperator(cluster, registry, { settings }, async () => {
    await sizes.next((s) => s.who === 'gate-reader', 'the create handler');
    for (const name of names) await sizes.next((s) => s.who === name, `the event handler of ${name}`);
    assert.deepEqual(sizes.items.filter((s) => s.size !== names.length), [], 'every handler saw the whole index');
  });
});

test('two operators with one registry keep indexes of their own, and their cleanup handlers see them', async (t) => {
  const places = [{ name: 'own-a', namespace: NAMESPACE }, { name: 'own-b', namespace: OTHER }];
  removeAfter(t, ConfigMaps, places);
  for (const { name, namespace } of places) {
    await createObject(cluster.client, ConfigMaps, { metadata: { name, namespace, labels: { own: 'yes' } } });
  }
  const seen = observed<{ namespace: string | null; names: string[] }>();
  const cleanups = observed<{ namespaces: string[] }>();
  const registry = new OperatorRegistry();
  const byNamespace = registry.on.index(ConfigMaps, function by_namespace({ namespace, name }) {
    return { [namespace ?? '']: name };
  }, { labels: { own: 'yes' } });
  registry.on.event(ConfigMaps, function own_seen({ namespace, indices }) {
    seen.push({ namespace, names: [...indices.get(byNamespace).values()].flatMap((store) => [...store]) });
  }, { labels: { own: 'yes' } });
  registry.on.cleanup(function report({ indices }) {
    cleanups.push({ namespaces: [...indices.get(byNamespace).keys()] });
  });
  await withOperator(cluster, registry, { namespaces: [NAMESPACE] }, async () => {
    await withOperator(cluster, registry, { namespaces: [OTHER] }, async () => {
      await seen.next((s) => s.namespace === OTHER, 'the other namespace\'s object');
      await seen.next((s) => s.namespace === NAMESPACE, 'the default namespace\'s object');
    });
    assert.deepEqual(cleanups.items, [{ namespaces: [OTHER] }], 'the operator of the other namespace has stopped');
  });
  assert.deepEqual(cleanups.items, [{ namespaces: [OTHER] }, { namespaces: [NAMESPACE] }]);
  const own = (namespace: string | null) => (namespace === OTHER ? 'own-b' : 'own-a');
  for (const item of seen.items) assert.deepEqual(item.names, [own(item.namespace)], 'an index of its namespace only');
});
