/**
 * `kopf dev` where the current kubeconfig context answers: it says which cluster that is, it is
 * `kopf run` there, on the whole cluster, and it changes nothing in that cluster by itself (no CRD
 * installed, no sample created). Where none answers, it starts a local control plane: the
 * scaffold's tests cover that. Either way, `--metrics` serves the operator's metrics, as for `kopf run`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOperator } from '../../../runtime/testing.ts';
import { listObjects } from '../../../runtime/kube/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { CRD_YAML, EXAMPLES_DIR, OBJECT_YAML } from '../rules.ts';
import { freePort } from '../ports.ts';
import { scrape } from '../metrics/exposition.ts';
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

test('kopf dev --metrics serves the operator\'s metrics, on the cluster that answers and on a local one', async (t) => {
  const onCluster = `http://127.0.0.1:${await freePort()}/metrics`;
  const operator = runOperator({
    command: [process.execPath, CLI, 'dev'], args: ['--metrics', onCluster, '--verbose'],
    files: [`${EXAMPLES_DIR}/01-minimal/example.ts`], kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  t.after(() => operator.stop());
  await operator.waitFor('Starting the watch-stream for kopfexamples', { timeout: 60_000 });
  assert.match(await scrape(onCluster), /^# TYPE kopf_watch_healthy gauge$/m);
  assert.equal((await operator.stop()).exitCode, 0);

  const local = `http://127.0.0.1:${await freePort()}/metrics`;
  const locally = runOperator({
    command: [process.execPath, CLI, 'dev'], args: ['--local', '--crd', CRD_YAML, '--metrics', local],
    files: [`${EXAMPLES_DIR}/01-minimal/example.ts`],
  });
  t.after(() => locally.stop({ signal: 'SIGINT' }));
  await locally.waitFor(`    curl ${local}`, { timeout: 120_000 }); // said with the kubeconfig, once it serves
  assert.match(await scrape(local), /^# TYPE kopf_watch_healthy gauge$/m);
  assert.equal((await locally.stop({ signal: 'SIGINT', timeout: 60_000 })).exitCode, 0);
});
