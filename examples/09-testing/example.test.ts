/**
 * How to test an operator: a local control plane, the operator running as a child process, and
 * assertions on what it logged. The same test runs the Python Kopf twin of the operator.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { runOperator, startControlPlane, type ControlPlane } from 'kopf/testing';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';

const CRD = join(import.meta.dirname, '..', 'crd.yaml');
const OBJECT = {
  apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
  metadata: { name: 'kopf-example-1', namespace: 'default' },
  spec: { field: 'value' },
};

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
  await cp.installCrds([CRD]);
});
after(async () => { await cp?.stop(); });

async function lifecycle(files: string[], command?: string[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(cp.kubeconfig);
  const operator = runOperator(
    { command, files, args: ['--all-namespaces', '--verbose', '--standalone'], kubeconfigPath: cp.kubeconfigPath }
  );
  try {
    await operator.waitFor('Starting the watch-stream for kopfexamples');
    await api.create(OBJECT);
    await operator.waitFor('[default/kopf-example-1] Something was logged here.');
    await operator.waitFor('Creation is processed:');
    await api.delete(OBJECT);
    await operator.waitFor('[default/kopf-example-1] Deleted, really deleted');
  } catch (error) {
    await operator.stop();
    throw error;
  }
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
  assert.match(exit.output, /\[default\/kopf-example-1\] Creation is in progress:/);
}

test('the operator logs on creation, and exits cleanly', async () => {
  await lifecycle([join(import.meta.dirname, 'example.ts')]);
});

test('so does its Python Kopf twin', async () => {
  await lifecycle([join(import.meta.dirname, 'kopf_twin.py')], await kopfRunCommand());
});
