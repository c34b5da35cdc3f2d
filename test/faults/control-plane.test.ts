/**
 * The control plane fails under the operator: kube-apiserver is SIGKILLed and restarted while
 * objects are being created and while they are being deleted; etcd is SIGKILLed and restarted
 * during both too. The moment is chosen by the fault proxy: after the operator's n-th write of
 * the objects went through.
 */
import { test, type TestContext } from 'node:test';
import { useCluster } from '../e2e/use-cluster.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();
const TIMEOUT = { timeout: 300_000 };
const faultProxy = useFaultProxy(cluster);

const OBJECTS = 6;
type Restart = () => Promise<void>;

/** Creates (or deletes) the objects and runs `restart` once the operator's third write of them passed. */
async function duringWrites(scenario: Scenario, act: (name: string) => Promise<void>, restart: Restart): Promise<void> {
  const proxy = await faultProxy();
  const path = new RegExp(`/namespaces/${scenario.options.namespace}/kopfexamples/`);
  const third = proxy.passed({ method: 'PATCH', path }, { count: 3 });
  for (let i = 0; i < OBJECTS; i++) await act(`o${i}`);
  await third;
  await restart();
  scenario.faults++;
}

async function startScenario(t: TestContext, title: string, namespace: string): Promise<Scenario> {
  const proxy = await faultProxy();
  const scenario = await Scenario.open(t, cluster, { title, namespace });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  return scenario;
}

const killApiServer: Restart = () => cluster.cp.restartApiServer({ signal: 'SIGKILL' });
const killEtcd: Restart = () => cluster.cp.restartEtcd({ signal: 'SIGKILL' });

test('kube-apiserver killed and restarted during creation', TIMEOUT, async (t) => {
  const scenario = await startScenario(t, 'kube-apiserver killed during creation', 'apiserver-creation');
  await duringWrites(scenario, (name) => scenario.create(name), killApiServer);
  await scenario.verify(t);
});

test('kube-apiserver killed and restarted during deletion', TIMEOUT, async (t) => {
  const scenario = await startScenario(t, 'kube-apiserver killed during deletion', 'apiserver-deletion');
  for (let i = 0; i < OBJECTS; i++) await scenario.create(`o${i}`);
  await scenario.settled();
  await duringWrites(scenario, (name) => scenario.delete(name), killApiServer);
  await scenario.verify(t);
});

test('etcd killed and restarted during creation and during deletion', TIMEOUT, async (t) => {
  const scenario = await startScenario(t, 'etcd killed during creation, deletion', 'etcd-restarts');
  await duringWrites(scenario, (name) => scenario.create(name), killEtcd);
  await scenario.settled();
  await duringWrites(scenario, (name) => scenario.delete(name), killEtcd);
  await scenario.verify(t);
});
