/**
 * Replicas of one operator in a ring (`kopf run --sharding RING`), splitting the objects between
 * them, while objects are created, changed and deleted: replicas SIGKILLed at random, replicas
 * joining and stopping cleanly, kube-apiserver restarted once. The journal of handler runs (their
 * starts and ends, by process) must show that no two replicas were ever in one object's handlers at
 * the same time, that nothing was lost, and that every object was handled once per change: a
 * handler ran again only where the replica of its earlier run was killed before the run's success
 * was recorded. The decisions come from a seeded generator: the seed is printed, and
 * KOPF_FAULTS_SEED replays them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { listObjects } from '../../runtime/kube/index.ts';
import type { RunningOperator } from '../../runtime/testing/runner.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { useCluster } from '../e2e/use-cluster.ts';
import type { JournalEntry } from './journal.ts';
import { SeededRandom } from './random.ts';
import { Scenario } from './scenario.ts';
import { liveThrough, planLifecycles } from './workload.ts';

const cluster = useCluster();

const NAMESPACE = 'sharding';
const RING = 'journal';
const OBJECTS = 24;
/** Replicas at the start: one that leaves is replaced while fewer run; joins make up to MAX. */
const REPLICAS = 3;
const MAX = 4;
const CHANGES = 9;
/** Short Leases, so that a killed replica's objects move within seconds. */
const SETTINGS = { sharding: { leaseDuration: 3, renewDeadline: 2, retryPeriod: 0.5 } };
/** Long enough for two replicas' runs of one object to meet, if anything let them. */
const WORK_MS = 150;

type Change = 'kill' | 'stop' | 'join';

test('replicas in a ring, killed, joining and stopping, an apiserver restart: never two at once, nothing lost',
  { timeout: 300_000 }, async (t) => {
    const random = new SeededRandom();
    const title = 'sharding: kills, joins, clean stops';
    const scenario = await Scenario.open(t, cluster, {
      title, namespace: NAMESPACE, seed: random.seed, args: ['--sharding', RING], settings: SETTINGS, workMs: WORK_MS,
    });
    // Decided up front, so that the seed alone fixes them whatever the processes' timing.
    const plans = planLifecycles(random, OBJECTS, 0.3);
    const changes = Array.from({ length: CHANGES }, () => ({
      after: random.between(1500, 4000), kind: (['kill', 'kill', 'stop', 'join'] as const)[random.between(0, 3)]!,
      which: random.next(),
    }));
    const restartAt = random.between(0, CHANGES - 1);

    const names = new Map<number, string>();
    const killed = new Set<number>();
    let living: RunningOperator[] = [];
    const join = (): RunningOperator => {
      const replica = scenario.start();
      names.set(replica.pid, `r${names.size}`);
      living.push(replica);
      return replica;
    };
    const leave = async (kind: 'kill' | 'stop', index: number): Promise<void> => {
      const replica = living[index]!;
      living = living.filter((r) => r !== replica);
      if (kind === 'kill') {
        killed.add(replica.pid);
        await scenario.kill(replica);
      } else {
        await scenario.stop(replica);
      }
      t.diagnostic(`${kind === 'kill' ? 'SIGKILLed' : 'stopped'} ${names.get(replica.pid)}`);
    };

    await Promise.all(Array.from({ length: REPLICAS }, () => scenario.ready(join())));
    const changing = async (): Promise<void> => {
      for (const [index, change] of changes.entries()) {
        await sleep(change.after);
        if (index === restartAt) {
          await cluster.cp.restartApiServer();
          scenario.faults++;
          t.diagnostic('restarted kube-apiserver');
        }
        const kind: Change = change.kind === 'join' && living.length >= MAX ? 'kill' : change.kind;
        const which = Math.floor(change.which * living.length);
        if (kind !== 'join') await leave(kind, which);
        if (kind === 'join' || living.length < REPLICAS) join();
      }
    };
    await Promise.all([liveThrough(scenario, plans), changing()]);
    await Promise.all(living.map((replica) => scenario.ready(replica)));
    try {
      await scenario.verify(t, { timeout: 90_000 });
    } catch (error) {
      t.diagnostic(await ringStory(scenario, names));
      throw error;
    }

    const unexplained = repeatedRuns(scenario.journal).filter((earlier) => !killed.has(earlier.pid));
    t.diagnostic(`${names.size} replicas in all, ${killed.size} of them killed`);
    const message = 'handlers that ran again though no kill cut their run short';
    assert.deepEqual(unexplained.map(describe(names)), [], message);
  });

/** For a failure's message: where the ring has each object, and what each replica said of the ring. */
async function ringStory(scenario: Scenario, names: ReadonlyMap<number, string>): Promise<string> {
  const { items } = await listObjects(scenario.kube.client, KopfExample, { namespace: NAMESPACE });
  const placed = items.map((o) => `${o.metadata?.name}: ${JSON.stringify(o.metadata?.labels ?? {})}`);
  const said = scenario.operators.flatMap((operator) => [
    `--- ${names.get(operator.pid)} (pid ${operator.pid})`,
    ...operator.lines.filter((line) => /ring|lease|assign|drain|member/i.test(line)).slice(-20),
  ]);
  return [...placed, ...said].map((line) => `  | ${line.slice(0, 300)}`).join('\n');
}

/** The runs that another run of the same handler for the same change followed. */
function repeatedRuns(journal: readonly JournalEntry[]): JournalEntry[] {
  const last = new Map<string, JournalEntry>();
  const repeated: JournalEntry[] = [];
  for (const entry of [...journal].sort((a, b) => a.t - b.t)) {
    const key = `${entry.uid} ${entry.handler} ${entry.step}`;
    const earlier = last.get(key);
    if (earlier) repeated.push(earlier);
    last.set(key, entry);
  }
  return repeated;
}

function describe(names: ReadonlyMap<number, string>): (entry: JournalEntry) => string {
  return (entry) => `${entry.name} ${entry.handler} step ${entry.step} in ${names.get(entry.pid) ?? entry.pid}`;
}
