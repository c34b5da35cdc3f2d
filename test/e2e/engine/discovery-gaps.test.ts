/**
 * An operator started while discovery does not list its resource (as for a moment after
 * kube-apiserver restarts), its CRD in place all along: the fault proxy hides the group from
 * discovery until the operator says it waits for it; the objects created afterwards are all
 * handled, without any change of the CRD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, getObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { useFaultProxy } from '../faults/use-proxy.ts';
import { about, withOperator } from './support.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

test('an operator started during a discovery gap serves its resource once discovery lists it, and handles every ' +
  'object', async () => {
  const proxy = await faultProxy();
  const hidden = proxy.hide({ group: 'kopf.dev' });
  const registry = new OperatorRegistry();
  registry.on.create('kopfexamples', async function create_fn({ name }) { return { handled: name }; });
  const names = ['gap-1', 'gap-2', 'gap-3', 'gap-4', 'gap-5'];
  await withOperator(cluster, registry, { kubeconfig: proxy.kubeconfig }, async ({ capture }) => {
    try {
      await capture.waitFor(
        (r) => r.message.startsWith("The resource 'kopfexamples' has a CRD, but discovery does not list it yet"),
        { timeout: 60 },
      );
    } finally {
      hidden.remove();
    }
    assert.ok(hidden.hits.count > 0, 'discovery was asked while the group was hidden');
    for (const name of names)
      await createObject(cluster.client, KopfExample, { metadata: { name, namespace: 'default' }, spec: {} });
    await capture.waitFor(
      (r) => r.message === "The resource 'kopfexamples' is served now: discovery lists it.",
      { timeout: 60 },
    );
    for (const name of names) {
      await capture.waitFor(about(name, 'Handling cycle is finished, waiting for new changes.'), { timeout: 60 });
    }
  });
  for (const name of names) {
    const object = await getObject(cluster.client, KopfExample, { namespace: 'default', name });
    assert.deepEqual((object.status as { create_fn?: unknown } | undefined)?.create_fn, { handled: name });
  }
});
