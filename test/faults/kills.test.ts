/**
 * SIGKILL of `kopf run` at random moments of the objects' lifecycles (creation, update, deletion,
 * and the operator's own startup), many times, each followed by a restart. The moments come from
 * a seeded generator: the seed is printed, and KOPF_FAULTS_SEED replays the test's decisions.
 */
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useCluster } from '../e2e/use-cluster.ts';
import { SeededRandom } from './random.ts';
import { Scenario } from './scenario.ts';

const cluster = useCluster();

const OBJECTS = 10;
const KILLS = 16;

test('SIGKILL at random moments of the lifecycle, with restarts: nothing lost, nothing re-run', async (t) => {
  const random = new SeededRandom();
  const scenario = await Scenario.open(t, cluster, { title: 'SIGKILL at random moments', namespace: 'random-kills', seed: random.seed });
  // Decided up front, so that the seed alone fixes them whatever the processes' timing.
  const plans = Array.from({ length: OBJECTS }, (_, i) => ({
    name: `o${i}`, createAfter: random.between(0, 12_000), updateAfter: random.between(0, 3000),
    deleteAfter: random.chance(0.5) ? random.between(0, 3000) : null,
  }));
  const kills = Array.from({ length: KILLS }, () => ({ waitReady: random.chance(0.5), after: random.between(0, 1500) }));

  const lifecycle = async (plan: (typeof plans)[number]): Promise<void> => {
    await sleep(plan.createAfter);
    await scenario.create(plan.name, 1);
    await sleep(plan.updateAfter);
    await scenario.update(plan.name, 2);
    if (plan.deleteAfter === null) return;
    await sleep(plan.deleteAfter);
    await scenario.delete(plan.name);
  };
  const killing = async (): Promise<void> => {
    for (const kill of kills) {
      const operator = scenario.start();
      if (kill.waitReady) await scenario.ready(operator);
      await sleep(kill.after);
      await scenario.kill();
    }
  };
  await Promise.all([...plans.map(lifecycle), killing()]);
  scenario.start();
  await scenario.verify(t);
});
