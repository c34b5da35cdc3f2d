/**
 * Replicas of one operator in a ring (`kopf run --sharding RING`), splitting the objects between
 * them, while objects are created, changed and deleted: replicas SIGKILLed at random, replicas
 * joining and stopping cleanly, kube-apiserver restarted once. The journal of handler runs (their
 * starts and ends, by process) must show that no two replicas were ever in one object's handlers at
 * the same time, that nothing was lost, and that every object was handled once per change: a
 * handler ran again only where the replica of its earlier run was killed before the run's success
 * was recorded. Meanwhile an attacker with ordinary write rights on the objects and the Leases
 * relabels objects for other members, writes drain labels of other values than the ring's, and
 * keeps a fake member (a Lease with the ring's label, claiming to be valid for 63 years) in the
 * ring's namespace until halfway: none of it may make two replicas run one object, nor strand any.
 * The decisions come from a seeded generator: the seed is printed, and KOPF_FAULTS_SEED replays them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createObject, deleteObject, listObjects } from '../../runtime/kube/index.ts';
import { Leases, microTime } from '../../runtime/structs/builtins.ts';
import { RING_LABEL, drainLabel, shardLabel } from '../../runtime/sharding/ring-labels.ts';
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
/** The attacker's writes, at random times among the changes. */
const ATTACKS = 16;
/** The Leases' namespace of the replicas (the control plane's kubeconfig names none). */
const LEASES_NAMESPACE = 'default';
const FAKE_MEMBER = `${RING}-fake`;

test('replicas in a ring, killed, joining and stopping, an apiserver restart, relabels, drain labels, a fake '
  + 'member: never two at once, nothing lost',
  { timeout: 300_000 }, async (t) => {
    const random = new SeededRandom();
    const title = 'sharding: kills, joins, clean stops, relabels, drain labels, a fake member';
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
    const attacks = Array.from({ length: ATTACKS }, () => ({
      after: random.between(300, 1500), kind: (['relabel', 'drain'] as const)[random.between(0, 1)]!,
      which: random.next(), to: random.next(),
    }));

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

    // A fake member, there before the replicas: a Lease with the ring's label, any holder, "valid" for ages.
    const spec = { holderIdentity: 'attacker', leaseDurationSeconds: 2_000_000_000, renewTime: microTime(Date.now()) };
    await createObject(scenario.kube.client, Leases, {
      metadata: { name: FAKE_MEMBER, namespace: LEASES_NAMESPACE, labels: { [RING_LABEL]: RING } }, spec,
    });
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
    const attacking = async (): Promise<void> => {
      for (const [index, attack] of attacks.entries()) {
        await sleep(attack.after);
        if (index === ATTACKS / 2) {
          await deleteObject(scenario.kube.client, Leases, { namespace: LEASES_NAMESPACE, name: FAKE_MEMBER });
          t.diagnostic('deleted the fake member');
        }
        const done = await attackOne(scenario, attack);
        if (done) t.diagnostic(done);
      }
    };
    await Promise.all([liveThrough(scenario, plans), changing(), attacking()]);
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

/**
 * One attacker's write, by the admin's client (no policy stands in the way here): an object picked
 * at random relabelled for another member of the ring (a real one, or the fake), or given a drain
 * label of another value than the ring's. Says what it did, if anything.
 */
async function attackOne(
  scenario: Scenario, attack: { kind: 'relabel' | 'drain'; which: number; to: number },
): Promise<string | undefined> {
  const client = scenario.kube.client;
  const { items } = await listObjects(client, KopfExample, { namespace: NAMESPACE });
  const object = items[Math.floor(attack.which * items.length)];
  const name = object?.metadata?.name;
  if (!name || object.metadata?.deletionTimestamp) return undefined;
  let labels: Record<string, string>;
  if (attack.kind === 'drain') {
    labels = { [drainLabel(RING)]: 'x' };
  } else {
    const selection = { namespace: LEASES_NAMESPACE, labelSelector: `${RING_LABEL}=${RING}` };
    const leases = await listObjects(client, Leases, selection);
    const current = object.metadata?.labels?.[shardLabel(RING)];
    const others = leases.items.map((l) => l.metadata?.name ?? '').filter((member) => member && member !== current);
    const to = others[Math.floor(attack.to * others.length)];
    if (!to) return undefined;
    labels = { [shardLabel(RING)]: to };
  }
  const done = await scenario.kube.mergePatch(KopfExample, { namespace: NAMESPACE, name }, { metadata: { labels } })
    .then(() => true, () => false); // deleted meanwhile: nothing done
  return done ? `attack: ${name} ${JSON.stringify(labels)}` : undefined;
}

/** For a failure's message: where the ring has each object, and what each replica said of the ring. */
async function ringStory(scenario: Scenario, names: ReadonlyMap<number, string>): Promise<string> {
  const { items } = await listObjects(scenario.kube.client, KopfExample, { namespace: NAMESPACE });
  const placed = items.map((o) => `${o.metadata?.name}: ${JSON.stringify(o.metadata?.labels ?? {})} `
    + `${JSON.stringify(o.metadata?.annotations?.[shardLabel(RING)] ?? null)}`);
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
