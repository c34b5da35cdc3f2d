/**
 * SIGKILL of `kopf run` at random moments of the objects' lifecycles (creation, update, deletion,
 * and the operator's own startup), many times, each followed by a restart. Half of the kills come
 * at a random time after the start; the other half a few milliseconds after a random write of the
 * objects went through, where a handling cycle is between its requests. The decisions come from a
 * seeded generator: the seed is printed, and KOPF_FAULTS_SEED replays them.
 */
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useCluster } from '../e2e/use-cluster.ts';
import { useFaultProxy } from '../e2e/faults/use-proxy.ts';
import { SeededRandom } from './random.ts';
import { Scenario } from './scenario.ts';
import { liveThrough, planLifecycles } from './workload.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

const OBJECTS = 12;
/** At least this many kills; more while the objects' lifecycles still run. */
const MIN_KILLS = 16;
const KILL_PLANS = 100;
const NAMESPACE = 'random-kills';

const TITLE = 'SIGKILL at random moments of the lifecycle, with restarts';

test(TITLE, { timeout: 300_000 }, async (t) => {
  const proxy = await faultProxy();
  const random = new SeededRandom();
  const title = 'SIGKILL at random moments';
  const scenario = await Scenario.open(t, cluster, { title, namespace: NAMESPACE, seed: random.seed });
  // Decided up front, so that the seed alone fixes them whatever the processes' timing.
  const plans = planLifecycles(random, OBJECTS, 0.5);
  const kills = Array.from({ length: KILL_PLANS }, () => ({
    waitReady: random.chance(0.5), afterWrite: random.chance(0.5) ? random.between(1, 6) : null,
    after: random.between(0, 1000), jitter: random.between(0, 20),
  }));

  const writes = { method: 'PATCH', path: new RegExp(`/namespaces/${NAMESPACE}/kopfexamples/`) };
  let living = true;
  const killing = async (): Promise<void> => {
    for (const [index, kill] of kills.entries()) {
      if (!living && index >= MIN_KILLS) return;
      const operator = scenario.start(proxy.kubeconfigPath);
      if (kill.waitReady) await scenario.ready(operator);
      if (kill.afterWrite === null) {
        await sleep(kill.after);
      } else {
        // No writes for a while (nothing to do, or an operator still starting): killed all the same.
        await proxy.passed(writes, { count: kill.afterWrite, timeout: 2000 }).catch(() => null);
        await sleep(kill.jitter);
      }
      await scenario.kill();
    }
  };
  const lifecycles = liveThrough(scenario, plans).finally(() => { living = false; });
  await Promise.all([lifecycles, killing()]);
  scenario.start(proxy.kubeconfigPath);
  await scenario.verify(t, { timeout: 45_000 });
});
