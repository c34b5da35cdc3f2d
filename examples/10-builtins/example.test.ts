/**
 * Kopf's own test of this example, for this runtime and for the Python twin: a pod is created
 * (`kopf-pod-*` in `default`), its killer is scheduled, the pod is deleted before the killer's
 * time, and the killer is cancelled. The local control plane runs no pods (no scheduler, no
 * kubelet): the API server deletes an unscheduled pod at once, once the finalizer is removed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { builtins } from 'kopf';
import { runOperator, startControlPlane, type ControlPlane } from 'kopf/testing';
import { Cluster } from '../../test/e2e/cluster.ts';
import { tracebackIn } from '../../test/e2e/rules.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';

let cp: ControlPlane;
let cluster: Cluster;
before(async () => {
  cp = await startControlPlane();
  cluster = new Cluster(cp.kubeconfigPath);
});
after(async () => {
  cluster?.close();
  await cp?.stop();
});

const POD: builtins.Pod = {
  apiVersion: 'v1', kind: 'Pod',
  metadata: { generateName: 'kopf-pod-', namespace: 'default' },
  spec: { containers: [{ name: 'the-only-one', image: 'busybox', command: ['sh', '-x', '-c', 'sleep 1'] }] },
};

async function podsReacted(files: string[], command?: string[]): Promise<void> {
  const operator = runOperator(
    { command, files, args: ['--all-namespaces', '--standalone', '--verbose'], kubeconfigPath: cp.kubeconfigPath }
  );
  let name = '';
  try {
    await operator.waitFor(/Starting the watch-stream for pods\.v1/);
    const pod = await cluster.create(builtins.Pods, POD);
    name = pod.metadata!.name!;
    await operator.waitFor(`[default/${name}] === Pod killing happens in 30s.`);
    await operator.waitFor(`[default/${name}] Creation is processed:`);
    await cluster.delete(builtins.Pods, { namespace: 'default', name });
    await operator.waitFor(`[default/${name}] === Pod killing is cancelled!`);
    await operator.waitFor(`[default/${name}] Deleted, really deleted`);
    await cluster.waitForGone(builtins.Pods, { namespace: 'default', name });
  } finally {
    await operator.stop();
  }
  const exit = await operator.exited;
  const context = `\n--- operator output ---\n${exit.output}\n---`;
  assert.equal(exit.exitCode, 0, `the operator exited with ${exit.exitCode}${context}`);
  assert.equal(tracebackIn(exit.output), null, `a traceback in the output${context}`);
  for (
    const line of [
      'Creation is in progress:',
      '=== Pod killing happens in 30s.',
      'Deletion is in progress:',
      '=== Pod killing is cancelled!',
    ]
  ) {
    assert.ok(exit.output.includes(`[default/${name}] ${line}`), `missing: ${line}${context}`);
  }
  assert.ok(!exit.output.includes('=== Pod killing happens NOW!'), `the killer was not cancelled${context}`);
  for (const id of ['pod_in_sight', 'pod_deleted']) {
    assert.equal(
      exit.output.split(`[default/${name}] Handler '${id}' succeeded.`).length - 1,
      1,
      `'${id}' did not succeed exactly once${context}`,
    );
  }
}

test('10-builtins: pods are reacted to, and the killer of a deleted pod is cancelled', async () => {
  await podsReacted([join(import.meta.dirname, 'example.ts')]);
});

test('10-builtins: so are they by the Python Kopf 1.44 twin', async () => {
  await podsReacted([join(import.meta.dirname, 'kopf_twin.py')], await kopfRunCommand());
});

