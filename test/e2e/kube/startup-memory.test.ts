/**
 * An operator's start costs no more memory than its settled run: reading the credentials from a
 * kubeconfig (the local control plane's: a client certificate) adds at most 20 MiB to the process
 * tree's peak (the operator and any process it starts) over the figure it settles at once it has
 * handled an object. Counted in bytes from /proc, not in time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { TreeSampler, treeRssMiB } from '../../../bench/lib/proctree.ts';
import { Cluster } from '../cluster.ts';
import { useCluster } from '../use-cluster.ts';

const SPIKE_MIB = 20;
/** Samples of the settled figure, taken one per second once the object is handled: the lowest counts. */
const SETTLED_SAMPLES = 5;

const cluster = useCluster();

test('reading the credentials at start adds at most 20 MiB to the process tree over its settled memory', async () => {
  const objects = new Cluster(cluster.cp.kubeconfigPath);
  const operator = runOperator({
    files: [join(import.meta.dirname, '../../../examples/01-minimal/example.ts')],
    kubeconfigPath: cluster.cp.kubeconfigPath,
    args: ['--standalone', '-n', 'default'],
  });
  const sampler = new TreeSampler(operator.pid);
  try {
    const ref = { namespace: 'default', name: 'startup-memory' };
    await objects.create(KopfExample, { metadata: { name: ref.name }, spec: { field: 'value' } }, 'default');
    await operator.waitForObject(
      KopfExample, ref, (o) => isDeepStrictEqual(o?.status, { create_fn: { message: 'hello world' } }),
      { timeout: 180_000 }, // bytes are counted here, not time: a loaded machine may take long
    );
    const settled: number[] = [];
    for (let i = 0; i < SETTLED_SAMPLES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      settled.push(treeRssMiB(operator.pid));
    }
    const peak = sampler.peakMiB;
    const floor = Math.min(...settled);
    assert.ok(floor > 0, 'the probe sees the operator');
    assert.ok(
      peak - floor <= SPIKE_MIB,
      `the start peaked at ${peak.toFixed(1)} MiB, ${(peak - floor).toFixed(1)} MiB over the settled ` +
        `${floor.toFixed(1)} MiB`,
    );
  } finally {
    sampler.stop();
    objects.close();
    await operator.stop();
  }
});
