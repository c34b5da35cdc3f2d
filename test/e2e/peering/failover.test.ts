/**
 * Failover between replicas on a real control plane, with Lease leader election and with
 * Kopf-style peering at distinct priorities: of three replicas exactly one processes; a clean stop
 * hands over at once; the active one SIGKILLed ten times at random moments while objects are
 * created loses nothing, and no two replicas ever run handlers at the same time (a journal of
 * handler starts and ends says so); a restart of kube-apiserver brings no double processing. The
 * seed is printed; `FAILOVER_SEED=N` replays a run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { runOperator, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { peeringManifests, peeringResources } from '../../../runtime/peering/peering-resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { CRD_YAML } from '../rules.ts';
import { intervals, overlaps } from './journal.ts';
import { SeededRandom } from '../../faults/random.ts';

const NAMESPACE = 'default';
const FILES = [join(import.meta.dirname, 'replica.ts')];

let cp: ControlPlane;
let cluster: Cluster;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kopf-failover-'));
  cp = await startControlPlane();
  await cp.installCrds([CRD_YAML, ...peeringManifests(NAMESPACE).slice(0, 2)]);
  cluster = new Cluster(cp.kubeconfigPath);
});

after(async () => {
  cluster?.close();
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** How replicas coordinate: on a Lease, or by peering priorities (the first replica highest). */
type Mode = 'lease' | 'peering';

interface Replica { name: string; priority: number; operator: RunningOperator }

/** What a replica says when it becomes the one that works, and when it is up and standing by. */
const ACTIVE: Record<Mode, RegExp> = {
  lease: /Became the leader/,
  peering: /Starting the watch-stream for kopfexamples|Resuming operations after the pause/,
};
const STANDING_BY: Record<Mode, RegExp> = { lease: /is held by .*: standing by/, peering: /Keep-alive in .*: ok/ };

function replica(
  mode: Mode,
  scope: string,
  name: string,
  priority: number,
  journal: string,
  env: Record<string, string> = {},
): Replica {
  const args = mode === 'lease' ? ['--standalone', `--leader-election=${scope}`] : [
    '--peering',
    scope,
    '--priority',
    String(priority),
  ];
  const operator = runOperator({
    files: FILES, kubeconfigPath: cp.kubeconfigPath,
    args: ['-n', NAMESPACE, '--verbose', ...args], env: { PEER_NAME: name, JOURNAL: journal, ...env },
  });
  return { name, priority, operator };
}

/** Resolves with the first replica to become active (counting its activations from `since`). */
async function nextActive(mode: Mode, replicas: readonly Replica[], since: Map<Replica, number>): Promise<Replica> {
  return Promise.any(replicas.map(async (r) => {
    await r.operator.waitFor(ACTIVE[mode], { timeout: 60_000, count: (since.get(r) ?? 0) + 1 });
    return r;
  }));
}

/**
 * Starts the replicas one after another, the first one at work before the others start (in
 * peering mode it has the highest priority), the others standing by.
 */
async function startReplicas(
  mode: Mode,
  scope: string,
  specs: [string, number][],
  journal: string,
  env?: Record<string, string>,
): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (const [name, priority] of specs) {
    const r = replica(mode, scope, name, priority, journal, env);
    replicas.push(r);
    await r.operator.waitFor(replicas.length === 1 ? ACTIVE[mode] : STANDING_BY[mode], { timeout: 60_000 });
  }
  return replicas;
}

function activations(mode: Mode, replicas: readonly Replica[]): Map<Replica, number> {
  return new Map(replicas.map((r) => [r, r.operator.lines.filter((l) => ACTIVE[mode].test(l)).length]));
}

async function preparePeering(mode: Mode, scope: string): Promise<void> {
  if (mode !== 'peering') return;
  const resource = peeringResources(false)[0]!;
  await cluster.purge(resource, { namespace: NAMESPACE, name: scope });
  await cluster.create(
    resource,
    { apiVersion: 'kopf.dev/v1', kind: 'KopfPeering', metadata: { name: scope } },
    NAMESPACE,
  );
}

async function createObjects(names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => cluster.create(KopfExample,
    { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name }, spec: { field: 'x' } }, NAMESPACE)));
}

async function allHandled(names: readonly string[]): Promise<Map<string, string>> {
  const by = new Map<string, string>();
  for (const name of names) {
    const o = await cluster.waitFor(
      KopfExample,
      { namespace: NAMESPACE, name },
      (x) => Boolean(x?.status?.create_fn),
      { timeout: 60_000 },
    );
    by.set(name, (o?.status?.create_fn as { by: string }).by);
  }
  return by;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

for (const mode of ['lease', 'peering'] as const) {
  test(`${mode}: one of three replicas works; a clean stop hands over at once`, async () => {
    const scope = `${mode}-clean`;
    await preparePeering(mode, scope);
    const journal = join(dir, `${scope}.journal`);
    writeFileSync(journal, '');
    const replicas = await startReplicas(mode, scope, [['a', 30], ['b', 20], ['c', 10]], journal);
    try {
      const first = replicas[0]!;
      const others = replicas.filter((r) => r !== first);
      const since = activations(mode, others);
      const stopped = Date.now();
      await first.operator.stop();
      if (mode === 'lease') assert.match(first.operator.output, new RegExp(`Released the lease 'default/${scope}'`));
      const second = await nextActive(mode, others, since);
      console.log(
        `${mode}: from SIGTERM to the next replica at work, the stop included: ` +
          `${((Date.now() - stopped) / 1000).toFixed(2)} s`
      );
      const name = `${scope}-object`;
      await cluster.purge(KopfExample, { namespace: NAMESPACE, name });
      await createObjects([name]);
      assert.equal((await allHandled([name])).get(name), second.name);
      for (const other of others.filter((r) => r !== second)) {
        assert.doesNotMatch(
          other.operator.output,
          new RegExp(`${name}\\] Handler 'create_fn'`),
          `${other.name} handled it too`,
        );
      }
    } finally {
      await Promise.all(replicas.map((r) => r.operator.stop()));
    }
  });

  test(`${mode}: the active replica SIGKILLed ten times while objects are created: nothing lost, never two at ` +
    `work`, async () => {
    const seed = Number(process.env.FAILOVER_SEED ?? Date.now() % 100_000);
    console.log(`${mode}: FAILOVER_SEED=${seed}`);
    const rnd = new SeededRandom(seed);
    const scope = `${mode}-kills`;
    await preparePeering(mode, scope);
    const journal = join(dir, `${scope}.journal`);
    writeFileSync(journal, '');
    const kills = new Map<string, number>();
    // Replacements come with lower priorities: a newcomer never takes over from a working replica.
    let priority = 100;
    let replicas = await startReplicas(
      mode,
      scope,
      [['r0', priority--], ['r1', priority--], ['r2', priority--]],
      journal,
    );
    const everyone = [...replicas];
    const names: string[] = [];
    const failovers: number[] = [];
    try {
      let active = replicas[0]!;
      for (let round = 0; round < 10; round++) {
        const batch = Array.from({ length: 3 }, (_, i) => `${scope}-${seed}-${round}-${i}`);
        names.push(...batch);
        const creating = createObjects(batch);
        await new Promise((resolve) => setTimeout(resolve, rnd.between(0, 399)));
        const others = replicas.filter((r) => r !== active);
        const since = activations(mode, others);
        const killedAt = Date.now();
        kills.set(active.name, killedAt);
        await active.operator.stop({ signal: 'SIGKILL' });
        const fresh = replica(mode, scope, `r${3 + round}`, priority--, journal);
        everyone.push(fresh);
        replicas = [...others, fresh];
        await creating;
        active = await nextActive(mode, others, since);
        failovers.push((Date.now() - killedAt) / 1000);
      }
      await allHandled(names);
      assert.deepEqual(overlaps(intervals(journal, kills)), [], `handlers of two replicas overlapped (seed ${seed})`);
      const settings = mode === 'lease' ? 'lease 3 s, retry 0.5 s' : 'peer lifetime 3 s';
      console.log(`${mode}: from SIGKILL to the next replica at work (${settings}): median ` +
        `${median(failovers).toFixed(2)} s, `
        + `max ${Math.max(...failovers).toFixed(2)} s`);
    } finally {
      await Promise.all(everyone.map((r) => r.operator.stop()));
    }
  });

  test(`${mode}: a restart of kube-apiserver brings no double processing`, async () => {
    const scope = `${mode}-restart`;
    await preparePeering(mode, scope);
    const journal = join(dir, `${scope}.journal`);
    writeFileSync(journal, '');
    // Realistic lifetimes: a record must outlive a restart of a few seconds.
    const env = { PEERING_LIFETIME: '30' };
    const replicas = await startReplicas(mode, scope, [['high', 20], ['low', 10]], journal, env);
    try {
      const first = replicas[0]!;
      const before = Array.from({ length: 3 }, (_, i) => `${scope}-before-${i}`);
      await createObjects(before);
      await allHandled(before);
      await cp.restartApiServer();
      const afterwards = Array.from({ length: 5 }, (_, i) => `${scope}-after-${i}`);
      await createObjects(afterwards);
      const by = await allHandled(afterwards);
      assert.deepEqual(overlaps(intervals(journal, new Map())), [], 'handlers of two replicas overlapped');
      const runs = intervals(journal, new Map()).filter((r) => [...before, ...afterwards].includes(r.object));
      assert.equal(
        runs.length,
        before.length + afterwards.length,
        `objects handled more than once:\n${JSON.stringify(runs)}`,
      );
      if (mode === 'peering') assert.deepEqual(new Set(by.values()), new Set([first.name]));
    } finally {
      await Promise.all(replicas.map((r) => r.operator.stop()));
    }
  });
}
