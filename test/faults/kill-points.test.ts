/**
 * SIGKILL of `kopf run` at each point between the writes of one handling cycle, chosen exactly:
 * the fault proxy holds the object's n-th write (PATCH of the object or of its status) of the
 * cycle, the operator is killed while it waits for the answer (so writes 1…n-1 are applied and
 * the n-th never is), and a new operator takes over. n runs from 1 until a cycle ends with fewer
 * writes, for the creation (two handlers), an update and a deletion of an object.
 */
import { test, type TestContext } from 'node:test';
import { useCluster } from '../e2e/use-cluster.ts';
import { STALL } from '../e2e/faults/proxy.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();
const TIMEOUT = { timeout: 300_000 };
const faultProxy = useFaultProxy(cluster);

type Phase = 'creation' | 'update' | 'deletion';

async function killAtEveryWrite(t: TestContext, phase: Phase): Promise<void> {
  const proxy = await faultProxy();
  const namespace = `kill-points-${phase}`;
  const title = `SIGKILL at each write of ${phase === 'update' ? 'an' : 'a'} ${phase}`;
  const scenario = await Scenario.open(t, cluster, { title, namespace });
  scenario.start(proxy.kubeconfigPath);
  await scenario.ready();
  for (let n = 1; ; n++) {
    const name = `${phase}-${n}`;
    if (phase !== 'creation') {
      const since = scenario.operator.lines.length;
      await scenario.create(name);
      await scenario.cycleFinished(name, since);
    }
    const path = new RegExp(`/namespaces/${namespace}/kopfexamples/${name}(/status)?$`);
    const writes = proxy.inject({ method: 'PATCH', path }, STALL, { nth: n });
    const since = scenario.operator.lines.length;
    if (phase === 'creation') await scenario.create(name);
    else if (phase === 'update') await scenario.update(name, 2);
    else await scenario.delete(name);
    const held = await Promise.race([
      writes.hits.first.then(() => true),
      scenario.cycleFinished(name, since).then(() => false),
    ]);
    writes.remove();
    if (!held) break; // the cycle has fewer than n writes: every point was tried
    t.diagnostic(`${name}: killed while its write #${n} of the ${phase} was held`);
    await scenario.kill();
    writes.cut();
    scenario.start(proxy.kubeconfigPath);
    await scenario.ready();
  }
  await scenario.verify(t, { timeout: 30_000 });
}

test('SIGKILL at each write of a creation', TIMEOUT, (t) => killAtEveryWrite(t, 'creation'));
test('SIGKILL at each write of an update', TIMEOUT, (t) => killAtEveryWrite(t, 'update'));
test('SIGKILL at each write of a deletion', TIMEOUT, (t) => killAtEveryWrite(t, 'deletion'));
