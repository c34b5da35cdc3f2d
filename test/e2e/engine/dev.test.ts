/**
 * `kopf dev` where the current kubeconfig context answers: it says which cluster that is, it is
 * `kopf run` there, on the whole cluster, and it changes nothing in that cluster by itself (no CRD
 * installed, no sample created).
 * Where none answers, it starts a local control plane: the scaffold's tests cover that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOperator } from '../../../runtime/testing.ts';
import { listObjects } from '../../../runtime/kube/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { CRD_YAML, EXAMPLES_DIR, OBJECT_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';

const CLI = new URL('../../../runtime/cli/main.ts', import.meta.url).pathname;
const cluster = useCluster();

test('kopf dev runs the operator on the cluster that answers, and applies no samples there', async (t) => {
  const operator = runOperator({
    command: [process.execPath, CLI, 'dev'],
    args: ['--crd', CRD_YAML, '--object', OBJECT_YAML, '--verbose'],
    files: [`${EXAMPLES_DIR}/01-minimal/example.ts`],
    kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  t.after(() => operator.stop());
  await operator.waitFor('Starting the watch-stream for kopfexamples', { timeout: 60_000 });
  assert.doesNotMatch(operator.output, /local control plane/);
  // Which cluster it is, said before anything else: a developer's operator pauses the deployed ones there.
  const first = operator.lines.find((line) => line.trim()) ?? '';
  assert.match(first, /^==> The current kubeconfig context answers: Kubernetes v\S+ at /);
  assert.ok(first.endsWith(`at ${cluster.cp.server}.`), first);
  assert.match(operator.output, /The operator runs there as `kopf run --dev -A`/);
  const { items } = await listObjects(cluster.client, KopfExample, {});
  assert.deepEqual(items, []);
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
});
