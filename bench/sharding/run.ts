/**
 * Sharding benchmark: replicas of one operator in a ring (`kopf run --sharding RING`) on one local
 * control plane, with handlers that wait 50 ms on an "external call" (operator.ts).
 *
 *   node bench/sharding/run.ts [--n 3000] [--replicas standalone,1,2,3] [--moved 300] [--concurrency 32]
 *     [--settle 10]
 *
 * Scaling: for each replica count in turn (a fresh namespace and ring each; `standalone` is one
 * replica without a ring, `--standalone`, the baseline of what the ring adds), N objects created by
 * concurrent clients once the ring has all its members; the time from the first create to all
 * handled (seen by a watch with their creation result), each replica's CPU seconds (/proc
 * utime+stime over the burst), peak RSS (VmHWM), and resident memory before the objects and
 * `settle` seconds after (what it keeps per object it holds), API writes per object, and each
 * replica's share of the objects (which replica's result each object holds) against a fair share
 * (N / replicas).
 *
 * Failover, on a ring of three with `--moved` objects handled: a replica that does not assign is
 * stopped cleanly (SIGTERM) and its objects changed at that moment, timed until all of them are
 * handled again (by the others); a replica joins while every object is changed, timed until it
 * holds its share; a replica that does not assign is SIGKILLed, the same as the stop (its objects
 * move once its Lease has expired); then the assigner itself is SIGKILLed. Through all of it, the
 * journal of handler runs must show no handler run twice for one change.
 *
 * The machine is shared by the control plane, the replicas and the clients: the replicas' CPU
 * figures are their own, the times are the machine's.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchOptions } from '../lib/options.ts';
import { createObject, KubeClient, patchObject } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { startControlPlane, runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { delta, requestCounts } from '../../test/e2e/metrics.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { Observer } from '../burst/observer.ts';
import { cpuSeconds, peakRssMiB, rssMiB } from '../burst/procstat.ts';
import { defaultSettings } from '../../runtime/config/defaults.ts';
import { drainLabel, shardLabel } from '../../runtime/sharding/ring-labels.ts';

const values = benchOptions({ n: 3000, replicas: 'standalone,1,2,3', moved: 300, settle: 10, concurrency: 32 });
const N = values.n;
/** Replica counts in rings; `standalone` is one replica without a ring (`--standalone`), the baseline. */
const COUNTS = values.replicas.split(',').map((count) => {
  if (count === 'standalone') return null;
  if (!/^[1-9]\d*$/.test(count)) throw new Error(`--replicas wants standalone or counts of replicas, got ${count}`);
  return Number(count);
});
const MOVED = values.moved;
const CONCURRENCY = values.concurrency;
const SETTLE_MS = values.settle * 1000;
const OPERATOR = join(import.meta.dirname, 'operator.ts');
/** What a replica says once it is in the ring, with its member's name; and one without a ring, once started. */
const IN_RING = /Joined the ring '[^']*' as ([^ ]+)\./;
const STARTED = /Activity 'configure' succeeded/;

interface Replica { name: string; operator: RunningOperator; member?: string }

/**
 * Who handled an object last (its update's result, else its creation's), the change it handled,
 * and where the ring has it now (its assignment label's member, and whether it is draining).
 */
interface Handled { by: string | undefined; field: string | undefined; shard: string | undefined; draining: boolean }

function handledBy(object: KopfExample, ring: string | null): Handled {
  const status = (object.status ?? {}) as Record<string, { by?: string; field?: string } | undefined>;
  const labels = object.metadata?.labels ?? {};
  return {
    by: (status.update_fn ?? status.create_fn)?.by, field: status.update_fn?.field,
    shard: ring === null ? undefined : labels[shardLabel(ring)], draining: ring !== null && drainLabel(ring) in labels,
  };
}

/** The replicas of one ring in one namespace, started and stopped as the benchmark says, and their journal. */
class Ring {
  readonly replicas: Replica[] = [];
  readonly journal: string;
  readonly #cp: ControlPlane;
  readonly #namespace: string;
  /** The ring's name; null: one replica without a ring. */
  readonly #ring: string | null;
  #made = 0;

  constructor(cp: ControlPlane, namespace: string, ring: string | null, dir: string) {
    this.#cp = cp;
    this.#namespace = namespace;
    this.#ring = ring;
    this.journal = join(dir, `${namespace}.journal`);
    writeFileSync(this.journal, '');
  }

  start(): Replica {
    const name = `r${this.#made++}`;
    const operator = runOperator({
      files: [OPERATOR], kubeconfigPath: this.#cp.kubeconfigPath,
      args: [...this.#ring ? ['--sharding', this.#ring] : ['--standalone'], '-n', this.#namespace],
      env: { REPLICA: name, JOURNAL: this.journal },
    });
    const replica = { name, operator };
    this.replicas.push(replica);
    return replica;
  }

  async stop(replica: Replica, signal?: NodeJS.Signals): Promise<void> {
    await replica.operator.stop(signal ? { signal, timeout: 60_000 } : { timeout: 60_000 });
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.operator.stop({ timeout: 60_000 })));
  }

  get ring(): string | null {
    return this.#ring;
  }

  /** Handler runs that came more than once for one object, handler and change. */
  twice(): string[] {
    const runs = new Map<string, number>();
    for (const line of readFileSync(this.journal, 'utf8').split('\n').filter(Boolean)) {
      const [, handler, name, field] = line.split(' ');
      const key = `${name} ${handler} ${field}`;
      runs.set(key, (runs.get(key) ?? 0) + 1);
    }
    return [...runs].filter(([, count]) => count > 1).map(([key, count]) => `${key}: ${count} runs`);
  }
}

async function ready(replica: Replica, inRing = true): Promise<void> {
  const line = await replica.operator.waitFor(inRing ? IN_RING : STARTED, { timeout: 120_000 });
  replica.member = IN_RING.exec(line)?.[1];
}

/** Resolves once the assigner has seen all these replicas (it says so in its log). */
async function assembled(replicas: readonly Replica[], ring: string | null): Promise<void> {
  if (ring === null) return;
  const members = replicas.map((r) => r.member).sort().join(', ');
  const line = `The ring '${ring}' has ${replicas.length} member(s): ${members}.`;
  await Promise.any(replicas.map((r) => r.operator.waitFor(line, { timeout: 120_000 })));
}

interface Scaling {
  /** Replicas in the ring; null: one without a ring. */
  replicas: number | null;
  handledSeconds: number;
  cpu: number[];
  peak: number[];
  /** Resident memory before the objects, and `settle` seconds after all were handled. */
  idle: number[];
  settled: number[];
  shares: number[];
  writesPerObject: number;
  twice: number;
}

async function scaling(cp: ControlPlane, client: KubeClient, dir: string, count: number | null): Promise<Scaling> {
  const namespace = `shard-${count ?? 'standalone'}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const owners = new Map<string, string>();
  const ring = new Ring(cp, namespace, count === null ? null : `bench-${count}`, dir);
  const observer = new Observer(client, KopfExample, namespace, (object) => {
    const { by } = handledBy(object, ring.ring);
    if (by) owners.set(object.metadata?.name ?? '', by);
    return by !== undefined;
  });
  await observer.ready;
  try {
    const replicas = Array.from({ length: count ?? 1 }, () => ring.start());
    await Promise.all(replicas.map((replica) => ready(replica, count !== null)));
    await assembled(replicas, ring.ring);
    const names = Array.from({ length: N }, (_, i) => `kex-${String(i).padStart(5, '0')}`);
    const idle = replicas.map((r) => rssMiB(r.operator.pid));
    const writesBefore = await requestCounts(cp.credentials, 'kopfexamples');
    const cpuBefore = replicas.map((r) => cpuSeconds(r.operator.pid));
    const start = performance.now();
    await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    await observer.until(() => names.every((name) => observer.handledAt.has(name)), 600_000, 'all handled');
    const handled = Math.max(...names.map((name) => observer.handledAt.get(name)!));
    const cpu = replicas.map((r, i) => cpuSeconds(r.operator.pid) - cpuBefore[i]!);
    const writes = delta(writesBefore, await requestCounts(cp.credentials, 'kopfexamples'), ['PATCH', 'PUT']);
    // Quiet for a while (nothing to wait for but time): what the replicas keep for the objects they hold.
    await sleep(SETTLE_MS);
    const settled = replicas.map((r) => rssMiB(r.operator.pid));
    return {
      replicas: count, handledSeconds: (handled - start) / 1000, cpu,
      peak: replicas.map((r) => peakRssMiB(r.operator.pid)), idle, settled,
      shares: replicas.map((r) => [...owners.values()].filter((by) => by === r.name).length),
      writesPerObject: writes.total / N, twice: ring.twice().length,
    };
  } finally {
    await ring.close();
    await observer.stop();
  }
}

interface Failover {
  /** Seconds until a stopped or killed replica's objects were handled again, by what happened. */
  times: [string, number][];
  /** The joining replica's share of the objects, and the fair one. */
  joinedShare: number;
  fairShare: number;
  twice: string[];
}

/** The replica that assigns now: of the living ones, the last to say it became the leader. */
function assignerOf(replicas: readonly Replica[]): Replica | undefined {
  const at = (r: Replica): number => r.operator.lines.findLastIndex((line) => /Became the leader/.test(line));
  const living = replicas.filter((r) => r.operator.lines.some((line) => /Became the leader/.test(line)));
  return living.sort((a, b) => at(b) - at(a))[0];
}

/** Changes the objects (their `spec.field`) and resolves when each one's update is handled. */
async function change(
  client: KubeClient, observer: Observer<KopfExample>, latest: Map<string, Handled>, namespace: string,
  names: readonly string[], field: string,
): Promise<number> {
  const start = performance.now();
  await pool(names, CONCURRENCY, (name) => patchObject(client, KopfExample, { namespace, name }, { spec: { field } }));
  await observer.until(() => names.every((name) => latest.get(name)?.field === field), 600_000, `all '${field}'`);
  return (performance.now() - start) / 1000;
}

async function failover(cp: ControlPlane, client: KubeClient, dir: string): Promise<Failover> {
  const namespace = 'shard-failover';
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const latest = new Map<string, Handled>();
  const ring = new Ring(cp, namespace, 'bench-failover', dir);
  const observer = new Observer(client, KopfExample, namespace, (object) => {
    latest.set(object.metadata?.name ?? '', handledBy(object, ring.ring));
    return false;
  });
  await observer.ready;
  try {
    const [first, second, third] = [ring.start(), ring.start(), ring.start()] as const;
    await Promise.all([first, second, third].map((replica) => ready(replica)));
    await assembled([first, second, third], ring.ring);
    const names = Array.from({ length: MOVED }, (_, i) => `moved-${String(i).padStart(4, '0')}`);
    await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    await observer.until(() => names.every((name) => latest.get(name)?.by), 600_000, 'all handled');
    const of = (replica: Replica): string[] => names.filter((name) => latest.get(name)?.by === replica.name);
    const times: [string, number][] = [];
    let living = [first, second, third];
    /** Stops (or kills) a replica, changes its objects at once, and times until all are handled again. */
    const away = async (what: string, replica: Replica, signal?: NodeJS.Signals): Promise<void> => {
      const its = of(replica);
      living = living.filter((r) => r !== replica);
      const started = performance.now();
      await ring.stop(replica, signal);
      await change(client, observer, latest, namespace, its, `after-${times.length}`);
      times.push([`${what} (${its.length} objects)`, (performance.now() - started) / 1000]);
    };

    const assigner = assignerOf(living)!;
    await away('SIGTERM of a replica that does not assign', living.find((r) => r !== assigner)!);

    // Every object changed while the joining replica takes its share: drains meet handlers in flight.
    const joining = ring.start();
    const joinedAt = performance.now();
    const changing = change(client, observer, latest, namespace, names, 'joining');
    await ready(joining);
    living.push(joining);
    const members = new Set(living.map((r) => r.member));
    await observer.until(() => names.every((name) => {
      const { shard, draining } = latest.get(name)!;
      return !draining && members.has(shard);
    }) && names.some((name) => latest.get(name)!.shard === joining.member), 600_000, 'the share taken');
    times.push(['a replica joins, until it holds its share (every object changed meanwhile)',
      (performance.now() - joinedAt) / 1000]);
    await changing;
    await change(client, observer, latest, namespace, names, 'joined');
    const joinedShare = of(joining).length;

    await away('SIGKILL of a replica that does not assign', living.find((r) => r !== assignerOf(living))!, 'SIGKILL');
    await away('SIGKILL of the assigner', assignerOf(living)!, 'SIGKILL');
    return { times, joinedShare, fairShare: MOVED / 3, twice: ring.twice() };
  } finally {
    await ring.close();
    await observer.stop();
  }
}

function scalingTable(results: readonly Scaling[]): string {
  const base = results[0]!;
  const header = [
    'replicas in the ring', 'first create → all handled, s', '/ first row', 'CPU s per replica',
    'CPU s / 1k objects (all)', 'peak RSS MiB per replica', 'RSS idle → settled, MiB',
    'RSS growth MiB / 1k objects held',
    'shares (fair ±20%)', 'writes / object', 'handlers run twice',
  ];
  const rows = [`| ${header.join(' | ')} |`, `|${header.map(() => '---|').join('')}`];
  for (const r of results) {
    const fair = N / (r.replicas ?? 1);
    const within = r.shares.every((share) => Math.abs(share - fair) <= fair * 0.2);
    const cpu = r.cpu.reduce((a, b) => a + b, 0);
    const cells = [
      String(r.replicas ?? '1, no ring'), r.handledSeconds.toFixed(1),
      (r.handledSeconds / base.handledSeconds).toFixed(2), r.cpu.map((c) => c.toFixed(1)).join(', '),
      (cpu / N * 1000).toFixed(2), r.peak.map((p) => p.toFixed(0)).join(', '),
      r.idle.map((idle, i) => `${idle.toFixed(0)} → ${r.settled[i]!.toFixed(0)}`).join(', '),
      r.settled.map((rss, i) => ((rss - r.idle[i]!) / r.shares[i]! * 1000).toFixed(1)).join(', '),
      `${r.shares.join(', ')} ${within ? '(yes)' : '(NO)'}`, r.writesPerObject.toFixed(2), String(r.twice),
    ];
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-bench-sharding-'));
  const cp = await startControlPlane();
  const client = KubeClient.fromKubeConfig(cp.kubeconfig);
  try {
    await cp.installCrds([CRD_YAML]);
    const results: Scaling[] = [];
    for (const count of COUNTS) {
      process.stderr.write(`${count ?? 'one replica without a ring'} replica(s), ${N} objects…\n`);
      results.push(await scaling(cp, client, dir, count));
      process.stderr.write(`  all handled in ${results.at(-1)!.handledSeconds.toFixed(1)} s\n`);
    }
    console.log(`\nScaling: ${N} objects, handlers waiting 50 ms, ${CONCURRENCY} concurrent clients.\n`);
    console.log(scalingTable(results));
    process.stderr.write(`failover: ${MOVED} objects on three replicas…\n`);
    const f = await failover(cp, client, dir);
    console.log(`\nFailover on a ring of three, ${MOVED} objects:\n`);
    const { leaseDuration, retryPeriod } = defaultSettings().sharding;
    console.log(`Leases of ${leaseDuration} s renewed every ${retryPeriod} s (the defaults).\n`);
    console.log('| what happened | seconds until its objects were handled again |\n|---|---|');
    for (const [what, seconds] of f.times) console.log(`| ${what} | ${seconds.toFixed(2)} |`);
    console.log(
      `\nThe joining replica's share: ${f.joinedShare} of ${MOVED} (fair: ${f.fairShare.toFixed(0)}); ` +
        `handlers run twice in all: ${f.twice.length}`,
    );
    if (f.twice.length) console.log(f.twice.slice(0, 20).join('\n'));
  } finally {
    client.close();
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
