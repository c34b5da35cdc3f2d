/**
 * The objects' side of a randomised fault test: each object is created at a random time, updated
 * once a little later, and deleted after that or left to live, as the seed decides.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SeededRandom } from './random.ts';
import type { Scenario } from './scenario.ts';

/** One object's lifecycle: the pauses before its creation, its update and its deletion (null: kept). */
export interface LifecyclePlan {
  name: string;
  createAfter: number;
  updateAfter: number;
  deleteAfter: number | null;
}

/**
 * The lifecycles of `count` objects, decided up front, so that the seed alone fixes them whatever
 * the processes' timing; each is deleted with the chance `deletion`.
 */
export function planLifecycles(random: SeededRandom, count: number, deletion: number): LifecyclePlan[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `o${i}`, createAfter: random.between(0, 25_000), updateAfter: random.between(0, 3000),
    deleteAfter: random.chance(deletion) ? random.between(0, 3000) : null,
  }));
}

/** Lives through every object's lifecycle at once; settles when the last one is done. */
export async function liveThrough(scenario: Scenario, plans: readonly LifecyclePlan[]): Promise<void> {
  await Promise.all(plans.map(async (plan) => {
    await sleep(plan.createAfter);
    await scenario.create(plan.name, 1);
    await sleep(plan.updateAfter);
    await scenario.update(plan.name, 2);
    if (plan.deleteAfter === null) return;
    await sleep(plan.deleteAfter);
    await scenario.delete(plan.name);
  }));
}
