import assert from 'node:assert/strict';
import { builtins } from 'kopf';
import { testExample } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

testExample(import.meta.dirname, {
  // The child's uid lands in the status; the child is the object's, named and labelled after it.
  // The local control plane has no garbage collector: the test deletes the child, as it would.
  afterCreation: async ({ cluster, ref }) => {
    const owner = await cluster.waitFor(
      KopfExample,
      ref,
      (o) => Array.isArray((o?.status?.create_fn as { children?: unknown })?.children),
    );
    const [uid] = (owner?.status?.create_fn as { children: string[] }).children;
    const pods = await cluster.waitForList(
      builtins.Pods,
      { namespace: 'default' },
      (all) => all.some((p) => p.metadata?.uid === uid),
    );
    const child = pods.find((p) => p.metadata?.uid === uid);
    assert.ok(child, `no pod with the uid ${uid}`);
    assert.equal(child.metadata?.generateName, 'kopf-example-1-');
    assert.deepEqual(child.metadata?.labels, { somelabel: 'somevalue' });
    assert.deepEqual(child.metadata?.ownerReferences, [{
      apiVersion: 'kopf.dev/v1',
      kind: 'KopfExample',
      name: 'kopf-example-1',
      uid: owner?.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    }]);
    assert.deepEqual(child.spec?.containers[0]?.env, [{ name: 'FIELD', value: 'value' }]);
    assert.match(child.spec?.containers[0]?.args?.[0] ?? '', /sleep 1m/);
    await cluster.delete(builtins.Pods, { namespace: 'default', name: child.metadata!.name! });
  },
});
