import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';
import { freePort } from '../../test/e2e/ports.ts';
import type { Cluster } from '../../test/e2e/cluster.ts';
import { patchObject } from '../../runtime/kube/index.ts';
import { Pods, type Pod } from '../../runtime/structs/builtins.ts';
import { KopfExample } from '../kopfexample.ts';

/** Pods are never run on the local control plane: one is made to look running through its status. */
const PODS: Array<{ name: string; phase: string }> = [
  { name: 'kopf-pod-running', phase: 'Running' },
  { name: 'kopf-pod-pending', phase: 'Pending' },
];

async function createPods(cluster: Cluster): Promise<void> {
  for (const { name, phase } of PODS) {
    const ref = { namespace: 'default', name };
    await cluster.purge(Pods, ref);
    const labels = { app: 'kopf-demo', phase: phase.toLowerCase() };
    const spec = { containers: [{ name: 'main', image: 'busybox' }] };
    const pod: Pod = { metadata: { name, namespace: 'default', labels }, spec };
    await cluster.create(Pods, pod);
    await patchObject(cluster.client, Pods, ref, { status: { phase } }, { subresource: 'status' });
  }
}

const PORT = await freePort();

testExample(import.meta.dirname, {
  args: ['--liveness', `http://127.0.0.1:${PORT}/healthz`],
  // The pods exist before the operator starts: the timer runs only once both indexes hold them.
  beforeStart: createPods,
  afterCreation: async ({ cluster, ref }) => {
    const running = (o: KopfExample | null) => o?.status?.['running-pods'];
    const object = await cluster.waitFor(KopfExample, ref, (o) => running(o) !== undefined, { timeout: 30_000 });
    assert.deepEqual(running(object), ['default::kopf-pod-running']);
    // The probes read the same index; other pods of the cluster count too, if any.
    const probes = await (await fetch(`http://127.0.0.1:${PORT}/healthz`)).json() as {
      pod_count: number;
      pod_names: string[]
    };
    assert.ok(
      probes.pod_names.includes('kopf-pod-running') && probes.pod_names.includes('kopf-pod-pending'),
      JSON.stringify(probes),
    );
    assert.equal(probes.pod_count, probes.pod_names.length);
  },
  check: ({ output }) => {
    const labelled = 'app=kopf-demo: kopf-pod-pending, kopf-pod-running; '
      + 'phase=pending: kopf-pod-pending; phase=running: kopf-pod-running';
    assert.ok(output.includes(`[default/kopf-example-1] Pods by label: ${labelled}`), 'the label index as logged');
    assert.match(output, /\[default\/kopf-pod-running\] Indexer 'is_running' succeeded\./);
  },
});
