/**
 * The reconciler keeps the children equal to the spec, whatever changed: on scaling up and down,
 * and when a child is deleted or edited by hand. Every step waits for the children's state as a
 * watch sees it. The local control plane has no garbage collector: the test deletes the children
 * left with their owner, as it would. There is no Kopf twin to run: Kopf has no reconcilers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { builtins } from 'kopf';
import { runOperator } from 'kopf/testing';
import { tracebackIn, useExamplePlane } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

const plane = useExamplePlane();

const ref = { namespace: 'default', name: 'kopf-example-18' };
const selection = { namespace: 'default', labelSelector: `kopf.dev/set=${ref.name}` };

/** Waits until the children are exactly those named, each holding `field`; returns them. */
function childrenBecome(names: string[], field: string): Promise<builtins.ConfigMap[]> {
  return plane.cluster.waitForList(builtins.ConfigMaps, selection, (children) => {
    const found = children.map((child) => child.metadata?.name).sort();
    return JSON.stringify(found) === JSON.stringify([...names].sort()) &&
      children.every((child) => child.data?.field === field);
  });
}

const named = (count: number): string[] => Array.from({ length: count }, (_, index) => `${ref.name}-${index}`);

test('18-reconcile: the children follow the spec, and come back when deleted or edited by hand', async () => {
  const { cp, cluster } = plane;
  const operator = runOperator({
    files: [join(import.meta.dirname, 'example.ts')],
    args: ['--standalone', '--namespace', 'default', '--verbose'],
    kubeconfigPath: cp.kubeconfigPath,
  });
  try {
    await operator.waitFor(/Starting the watch-stream for kopfexamples\.v1\.kopf\.dev/);
    const object = await cluster.create(KopfExample, {
      apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: ref, spec: { field: 'value', replicas: 3 },
    });
    const [first] = await childrenBecome(named(3), 'value');
    assert.deepEqual(first?.metadata?.ownerReferences?.map((owner) => [owner.uid, owner.controller]), [
      [object.metadata?.uid, true],
    ]);

    await cluster.mergePatch(KopfExample, ref, { spec: { replicas: 5 } });
    await childrenBecome(named(5), 'value');
    await cluster.mergePatch(KopfExample, ref, { spec: { replicas: 2 } });
    const kept = await childrenBecome(named(2), 'value');
    await cluster.waitFor(KopfExample, ref, (o) => o?.status?.replicas === 2);

    // Deleted by hand: a new child (another uid) of the same name.
    const deleted = kept.find((child) => child.metadata?.name === `${ref.name}-1`)!;
    await cluster.delete(builtins.ConfigMaps, { namespace: 'default', name: `${ref.name}-1` });
    await cluster.waitFor(
      builtins.ConfigMaps,
      { namespace: 'default', name: `${ref.name}-1` },
      (child) => child !== null && child.metadata?.uid !== deleted.metadata?.uid,
    );

    // Edited by hand: restored.
    await cluster.mergePatch(builtins.ConfigMaps, { namespace: 'default', name: `${ref.name}-0` }, {
      data: { field: 'edited' },
    });
    await operator.waitFor(`[default/${ref.name}] Restoring the child ${ref.name}-0.`);
    await childrenBecome(named(2), 'value');

    await cluster.delete(KopfExample, ref);
    await cluster.waitForGone(KopfExample, ref);
  } finally {
    await operator.stop();
    for (const name of named(5)) await cluster.purge(builtins.ConfigMaps, { namespace: 'default', name });
  }
  const exit = await operator.exited;
  const context = `\n--- operator output ---\n${exit.output}\n---`;
  assert.equal(exit.exitCode, 0, `the operator exited with ${exit.exitCode}${context}`);
  assert.equal(tracebackIn(exit.output), null, `a traceback in the output${context}`);
  assert.doesNotMatch(exit.output, /Reconciler 'keep_children' failed/, `the reconciler failed${context}`);
});
