/**
 * Leader election on a real control plane: of three replicas exactly one processes; a clean stop
 * hands over at once; the leader SIGKILLed at random moments while objects are created loses
 * nothing, and no two replicas ever run handlers at the same time (a journal of handler starts
 * and ends says so). The seed is printed; `LEADERS_SEED=N` replays a run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { runOperator, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { CRD_YAML } from '../rules.ts';

const NAMESPACE = 'default';
const FILES = [join(import.meta.dirname, 'elected.ts')];
const LEADER = /Became the leader/;

let cp: ControlPlane;
let cluster: Cluster;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kopf-leaders-'));
  cp = await startControlPlane();
  await cp.installCrds([CRD_YAML]);
  cluster = new Cluster(cp.kubeconfigPath);
});

after(async () => {
  cluster?.close();
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Replica { name: string; operator: RunningOperator }

function replica(name: string, lease: string, journal: string): Replica {
  const operator = runOperator({
    files: FILES, kubeconfigPath: cp.kubeconfigPath,
    args: ['-n', NAMESPACE, '--standalone', `--leader-election=${lease}`], env: { PEER_NAME: name, JOURNAL: journal },
  });
  return { name, operator };
}

/** Resolves with the first of the replicas to become the leader (counting leaderships from `since`). */
async function nextLeader(replicas: readonly Replica[], since: Map<Replica, number>): Promise<Replica> {
  return Promise.any(replicas.map(async (r) => {
    await r.operator.waitFor(LEADER, { timeout: 60_000, count: (since.get(r) ?? 0) + 1 });
    return r;
  }));
}

function leaderships(replicas: readonly Replica[]): Map<Replica, number> {
  return new Map(replicas.map((r) => [r, r.operator.lines.filter((l) => LEADER.test(l)).length]));
}

/** Small deterministic generator (mulberry32), so that a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Interval { who: string; object: string; start: number; end: number }

/** The journal's handler runs; a run cut by a kill ends at the kill. */
function intervals(journal: string, kills: Map<string, number>): Interval[] {
  const open = new Map<string, Interval>();
  const done: Interval[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n').filter(Boolean)) {
    const [kind, who, object, at] = line.split(' ') as [string, string, string, string];
    if (kind === 'start') open.set(`${who} ${object}`, { who, object, start: Number(at), end: Infinity });
    else {
      const run = open.get(`${who} ${object}`)!;
      open.delete(`${who} ${object}`);
      done.push({ ...run, end: Number(at) });
    }
  }
  for (const run of open.values()) done.push({ ...run, end: kills.get(run.who) ?? Infinity });
  return done.sort((a, b) => a.start - b.start);
}

function overlaps(runs: readonly Interval[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length && runs[j]!.start < runs[i]!.end; j++) {
      if (runs[j]!.who !== runs[i]!.who) found.push(`${runs[i]!.who}:${runs[i]!.object} and ${runs[j]!.who}:${runs[j]!.object}`);
    }
  }
  return found;
}

test('one of three replicas leads; a clean stop hands the lease over at once', async () => {
  const journal = join(dir, 'clean.journal');
  writeFileSync(journal, '');
  const replicas = ['a', 'b', 'c'].map((name) => replica(name, 'clean-handover', journal));
  try {
    const first = await nextLeader(replicas, new Map());
    const others = replicas.filter((r) => r !== first);
    await Promise.all(others.map((r) => r.operator.waitFor(/is held by .*: standing by/)));
    const since = leaderships(others);
    const stopped = Date.now();
    await first.operator.stop();
    assert.match(first.operator.output, /Released the lease 'default\/clean-handover'/);
    const second = await nextLeader(others, since);
    const failover = (Date.now() - stopped) / 1000;
    console.log(`failover after SIGTERM (stop included): ${failover.toFixed(2)} s`);
    const name = 'elected-once';
    await cluster.purge(KopfExample, { namespace: NAMESPACE, name });
    await cluster.create(KopfExample, { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name }, spec: { field: 'x' } }, NAMESPACE);
    const handled = await cluster.waitFor(KopfExample, { namespace: NAMESPACE, name }, (o) => Boolean(o?.status?.create_fn));
    assert.deepEqual(handled?.status?.create_fn, { by: second.name });
    for (const other of replicas.filter((r) => r !== second)) {
      assert.doesNotMatch(other.operator.output, new RegExp(`${name}\\] Handler 'create_fn'`), `${other.name} handled it too`);
    }
  } finally {
    await Promise.all(replicas.map((r) => r.operator.stop()));
  }
});

test('the leader SIGKILLed ten times while objects are created: nothing lost, no two replicas at work at once', async () => {
  const seed = Number(process.env.LEADERS_SEED ?? Date.now() % 100_000);
  console.log(`LEADERS_SEED=${seed}`);
  const rnd = random(seed);
  const journal = join(dir, 'kills.journal');
  writeFileSync(journal, '');
  const kills = new Map<string, number>();
  let replicas = ['r0', 'r1', 'r2'].map((name) => replica(name, 'kills', journal));
  const everyone = [...replicas];
  const names: string[] = [];
  const failovers: number[] = [];
  try {
    let leader = await nextLeader(replicas, new Map());
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({ length: 3 }, (_, i) => `kill-${seed}-${round}-${i}`);
      names.push(...batch);
      const creating = Promise.all(batch.map((name) => cluster.create(KopfExample,
        { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name }, spec: { field: 'x' } }, NAMESPACE)));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(rnd() * 400)));
      const others = replicas.filter((r) => r !== leader);
      const since = leaderships(others);
      const killedAt = Date.now();
      kills.set(leader.name, killedAt);
      await leader.operator.stop({ signal: 'SIGKILL' });
      const fresh = replica(`r${3 + round}`, 'kills', journal);
      everyone.push(fresh);
      replicas = [...others, fresh];
      await creating;
      leader = await nextLeader(others, since);
      failovers.push((Date.now() - killedAt) / 1000);
    }
    for (const name of names) {
      await cluster.waitFor(KopfExample, { namespace: NAMESPACE, name }, (o) => Boolean(o?.status?.create_fn), { timeout: 60_000 });
    }
    const found = overlaps(intervals(journal, kills));
    assert.deepEqual(found, [], `handlers of two replicas overlapped (seed ${seed})`);
    failovers.sort((a, b) => a - b);
    console.log(`failovers after SIGKILL (lease 3 s, retry 0.5 s): median ${failovers[5]!.toFixed(2)} s, max ${failovers[9]!.toFixed(2)} s`);
  } finally {
    await Promise.all(everyone.map((r) => r.operator.stop()));
  }
});
