/**
 * The apiserver refuses requests for a while: 429 Too Many Requests with Retry-After (as API
 * Priority and Fairness answers), and bursts of 5xx, on the operator's writes and on its watch
 * requests, while objects are created, changed and deleted. Answered by the fault proxy without
 * forwarding: the refused writes are not applied.
 */
import { test } from 'node:test';
import { useCluster } from '../e2e/use-cluster.ts';
import { answer, type Injection } from '../e2e/faults/proxy.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

const OBJECTS = 4;
const TIMEOUT = { timeout: 300_000 };

function objectsOf(namespace: string) {
  return {
    writes: { method: 'PATCH', path: new RegExp(`/namespaces/${namespace}/kopfexamples/`) },
    watch: { path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`, watch: true },
    listing: { method: 'GET', path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`, watch: false },
  };
}

/** Creates, updates and deletes (half of) the objects, then reopens the watch through `refusals`. */
async function lifecycles(scenario: Scenario, refusals: () => Injection[]): Promise<void> {
  const proxy = await faultProxy();
  const { watch } = objectsOf(scenario.options.namespace);
  for (let i = 0; i < OBJECTS; i++) await scenario.create(`o${i}`);
  for (let i = 0; i < OBJECTS; i++) await scenario.update(`o${i}`, 2);
  await scenario.settled();
  const refused = refusals();
  const reopened = proxy.passed(watch);
  scenario.faults += proxy.cutStreams(watch);
  for (let i = 0; i < OBJECTS; i += 2) await scenario.delete(`o${i}`);
  for (let i = 1; i < OBJECTS; i += 2) await scenario.update(`o${i}`, 3);
  await reopened;
  await scenario.settled();
  for (const injection of refused) scenario.faults += injection.hits.count;
}

test('429 with Retry-After on writes and watches', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const scenario = await Scenario.open(t, cluster, { title: '429 Too Many Requests', namespace: 'throttled' });
  const { writes, watch, listing } = objectsOf('throttled');
  const throttledWrites = proxy.inject(writes, answer(429, { retryAfter: 1 }), { times: 6 });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  await lifecycles(scenario, () => [
    proxy.inject(watch, answer(429, { retryAfter: 1 }), { times: 2 }),
    proxy.inject(listing, answer(429, { retryAfter: 1 }), { times: 2 }),
    proxy.inject(writes, answer(429, { retryAfter: 2 }), { times: 4 }),
  ]);
  scenario.faults += throttledWrites.hits.count;
  await scenario.verify(t);
});

test('bursts of 5xx on writes and watches', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const scenario = await Scenario.open(t, cluster, { title: '5xx bursts', namespace: 'failing' });
  const { writes, watch, listing } = objectsOf('failing');
  const burst = proxy.inject(writes, answer(503), { skip: 1, times: 4 });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  await lifecycles(scenario, () => [
    proxy.inject(watch, answer(500), { times: 3 }),
    proxy.inject(listing, answer(502), { times: 2 }),
    proxy.inject(writes, answer(504), { skip: 2, times: 3 }),
  ]);
  scenario.faults += burst.hits.count;
  await scenario.verify(t);
});
