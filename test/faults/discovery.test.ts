/**
 * Discovery misses the operator's group for a moment, as it does for up to a second after
 * kube-apiserver restarts: once while the operator starts, once while it runs (then the
 * resource's own requests answer 404 too, and the watch is cut, as in a restart). The operator
 * names its resource by a string, so it resolves it through discovery. When the moment is over,
 * the objects must be served: those created before, during and after the gap.
 */
import { test } from 'node:test';
import { useCluster } from '../e2e/use-cluster.ts';
import { answer } from '../e2e/faults/proxy.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

const RESOURCE = 'kopfexamples.kopf.dev';
const TIMEOUT = { timeout: 300_000 };

test('a group missing from discovery while the operator starts', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const namespace = 'gap-at-start';
  const title = 'discovery gap at start';
  const scenario = await Scenario.open(t, cluster, { title, namespace, resourceName: RESOURCE });
  await scenario.create('before');
  const gap = proxy.hide({ group: 'kopf.dev' });
  const operator = scenario.start(proxy.kubeconfigPath);
  await gap.hits.first;
  // The operator has seen the gap and said what it makes of it: the moment is over.
  await operator.waitFor(RESOURCE, { since: operator.lines.length, timeout: 60_000 });
  gap.remove();
  scenario.faults++;
  for (let i = 0; i < 3; i++) await scenario.create(`after-${i}`);
  await scenario.verify(t, { timeout: 45_000 });
});

test('a group missing from discovery while the operator runs', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const namespace = 'gap-while-running';
  const title = 'discovery gap while running';
  const scenario = await Scenario.open(t, cluster, { title, namespace, resourceName: RESOURCE });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  for (let i = 0; i < 2; i++) await scenario.create(`before-${i}`);
  await scenario.settled();

  const watch = { path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`, watch: true };
  const gap = proxy.hide({ group: 'kopf.dev' });
  const notServed = proxy.inject({ method: 'GET', path: /^\/apis\/kopf\.dev\// }, answer(404));
  scenario.faults += proxy.cutStreams(watch);
  await notServed.hits.first;
  await gap.hits.first;
  await scenario.create('during-0');
  await scenario.update('before-0', 2);
  notServed.remove();
  gap.remove();
  scenario.faults++;
  await scenario.create('after-0');
  await scenario.update('before-1', 2);
  await scenario.verify(t, { timeout: 60_000 });
});
