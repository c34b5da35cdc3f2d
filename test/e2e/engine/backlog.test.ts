/**
 * A backlog longer than the queue holds whole (`settings.queueing.heldLimit`), embedded on a real
 * control plane: objects that exist before the operator starts wait in line mostly as their names,
 * and each is read again (a GET at the version seen, or newer) when its turn comes; every object is
 * handled once, with the state it has at its turn, and one deleted while it waited is not handled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import { Namespaces } from '../../../runtime/structs/builtins.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { about, withOperator } from './support.ts';
import { delta, requestCounts } from '../metrics.ts';

const cluster = useCluster();

test('a cold start over a long backlog reads the waiting objects again at their turn, each handled once', async () => {
  const namespace = 'backlog';
  await createObject(cluster.client, Namespaces, { metadata: { name: namespace } });
  const names = Array.from({ length: 40 }, (_, i) => `b${String(i).padStart(2, '0')}`);
  for (const name of names) {
    await createObject(cluster.client, KopfExample, { metadata: { name, namespace }, spec: { field: 'listed' } });
  }
  const handled: string[] = [];
  const registry = new OperatorRegistry();
  let unblock!: () => void, running!: () => void;
  const blocked = new Promise<void>((resolve) => { unblock = resolve; });
  const first = new Promise<void>((resolve) => { running = resolve; });
  registry.on.create(KopfExample, async function create_fn({ name, spec }) {
    // The first object holds the only worker until the rest are in line (and the test has changed two).
    if (name === names[0]) { running(); await blocked; }
    handled.push(`${name}:${spec.field}`);
  });
  const settings = defaultSettings({ posting: { enabled: false }, queueing: { workerLimit: 1, heldLimit: 5 } });
  const before = await requestCounts(cluster.cp.credentials, 'kopfexamples');
  await withOperator(cluster, registry, { namespaces: [namespace], settings }, async ({ capture }) => {
    await first;
    // Far back in line: one changed, one deleted, while they wait.
    const [changed, deleted] = [names.at(-2)!, names.at(-1)!];
    await patchObject(cluster.client, KopfExample, { namespace, name: changed }, { spec: { field: 'changed' } });
    await deleteObject(cluster.client, KopfExample, { namespace, name: deleted });
    unblock();
    await capture.waitFor(about(changed, 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 60 });
    const expected = names.slice(0, -1).map((name) => `${name}:${name === changed ? 'changed' : 'listed'}`);
    assert.deepEqual([...handled].sort(), expected.sort());
    const reads = delta(before, await requestCounts(cluster.cp.credentials, 'kopfexamples'), ['GET']);
    // All but the one running, the five held whole and the one whose deletion replaced it were read again.
    assert.ok(reads.total >= names.length - 7, `${reads.total} objects read again`);
  });
});
