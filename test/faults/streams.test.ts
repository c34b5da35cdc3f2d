/**
 * The operator's watch stream fails: it goes silent (the fault proxy stops forwarding without
 * closing: a half-dead connection), or it is cut, repeatedly, while objects are created, changed
 * and deleted. A silent stream is noticed by the watch inactivity timeout (shortened here, from
 * 70 s, to keep the tests short) and reopened. One silence comes at the worst moment: between the
 * last two writes of a handling cycle, so that the operator has the event of the last-but-one
 * write and waits for the event of the last one longer than `persistence.consistencyTimeout`.
 */
import { test } from 'node:test';
import { useCluster } from '../e2e/use-cluster.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CUT, SILENCE, STALL } from '../e2e/faults/proxy.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();
const TIMEOUT = { timeout: 300_000 };
const faultProxy = useFaultProxy(cluster);

/** The writes of a creation with two handlers and a finalizer (the finalizer, two results, two records). */
const CREATION_WRITES = 5;

const watchOf = (namespace: string) => ({
  path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`, watch: true,
});

test('a watch stream that goes silent is reopened', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const settings = { watching: { inactivityTimeout: 3 } };
  const scenario = await Scenario.open(t, cluster, { title: 'watch stream silenced', namespace: 'silenced', settings });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  const watch = watchOf('silenced');
  for (let round = 0; round < 3; round++) {
    await scenario.create(`before-${round}`);
    await scenario.settled();
    const silence = proxy.inject(watch, SILENCE, { open: true, times: 0 });
    const reopened = proxy.passed(watch);
    await scenario.create(`during-${round}`);
    await scenario.update(`before-${round}`, 2);
    if (round > 0) await scenario.delete(`during-${round - 1}`);
    await reopened;
    scenario.faults += silence.hits.count;
    silence.cut();
  }
  await scenario.verify(t);
});

test('a watch stream cut, its reopening too, is reopened', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const scenario = await Scenario.open(t, cluster, { title: 'watch stream cut', namespace: 'cut-streams' });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  const watch = watchOf('cut-streams');
  for (let round = 0; round < 5; round++) {
    await scenario.create(`o${round}`);
    if (round > 0) await scenario.update(`o${round - 1}`, 2);
    if (round > 1) await scenario.delete(`o${round - 2}`);
    // Every other round, the first attempts to reopen the stream are cut as well.
    const reopenings = proxy.inject(watch, CUT, { times: round % 2 ? 2 : 0 });
    const reopened = proxy.passed(watch);
    scenario.faults += proxy.cutStreams(watch);
    await reopened;
    scenario.faults += reopenings.hits.count;
    reopenings.remove();
  }
  await scenario.verify(t);
});

test('a watch silent between the last two writes of a cycle, past the consistency timeout', TIMEOUT, async (t) => {
  const proxy = await faultProxy();
  const namespace = 'silent-between-writes';
  // Longer than persistence.consistencyTimeout (5 s): the operator gives up waiting for its last write first.
  const settings = { watching: { inactivityTimeout: 10 } };
  const title = 'watch silenced between two writes';
  const scenario = await Scenario.open(t, cluster, { title, namespace, settings });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  const watch = watchOf(namespace);
  const writes = { method: 'PATCH', path: new RegExp(`/namespaces/${namespace}/kopfexamples/o1(/status)?$`) };
  const since = scenario.operator.lines.length;
  const last = proxy.inject(writes, STALL, { nth: CREATION_WRITES });
  await scenario.create('o1');
  const held = await Promise.race([
    last.hits.first.then(() => true),
    scenario.cycleFinished('o1', since).then(() => false),
  ]);
  if (!held) throw new Error(`The creation took fewer than ${CREATION_WRITES} writes: the test needs a new count.`);
  // The last-but-one write is applied: its event reaches the operator, then the stream goes silent.
  const applied = await scenario.kube.read(KopfExample, { name: 'o1', namespace });
  await proxy.relayed(watch, `"resourceVersion":"${applied.metadata?.resourceVersion}"`);
  const silence = proxy.inject(watch, SILENCE, { open: true, times: 0 });
  const reopened = proxy.passed(watch);
  last.release();
  await reopened;
  scenario.faults += silence.hits.count;
  await scenario.verify(t);
});
