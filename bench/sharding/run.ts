/**
 * Sharding benchmark: replicas of one operator in a ring (`kopf run --sharding RING`) on one local
 * control plane, with handlers that wait 50 ms on an "external call" (operator.ts).
 *
 *   node bench/sharding/run.ts [--n 3000] [--replicas 1,2,3] [--moved 300] [--concurrency 32]
 *
 * Scaling: for each replica count in turn (a fresh namespace and ring each), N objects created by
 * concurrent clients; the time from the first create to all handled (seen by a watch with their
 * creation result), each replica's CPU seconds (/proc utime+stime over the burst) and peak RSS
 * (VmHWM), API writes per object, and each replica's share of the objects (which replica's result
 * each object holds) against a fair share (N / replicas).
 *
 * Failover, on a ring of three with `--moved` objects handled: one replica SIGKILLed and its
 * objects changed at that moment, timed until all of them are handled again (by others, after its
 * Lease expired); then one stopped cleanly (SIGTERM), the same; then a replica joins while every
 * object is changed, and the time until it holds its share is taken. Through all of it, the
 * journal of handler runs must show no handler run twice for one change.
 *
 * The machine is shared by the control plane, the replicas and the clients: the replicas' CPU
 * figures are their own, the times are the machine's.
 */
import { performance } from 'node:perf_hooks';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createObject, KubeClient, patchObject } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { startControlPlane, runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { delta, requestCounts } from '../../test/e2e/metrics.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { Observer } from '../burst/observer.ts';
import { cpuSeconds, peakRssMiB } from '../burst/procstat.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '3000' },
    replicas: { type: 'string', default: '1,2,3' },
    moved: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '32' },
  },
});
const N = Number(values.n);
const COUNTS = values.replicas.split(',').map(Number);
const MOVED = Number(values.moved);
const CONCURRENCY = Number(values.concurrency);
const OPERATOR = join(import.meta.dirname, 'operator.ts');
/** What a replica says once it is in the ring and watches its share. */
const IN_RING = /Joined the ring/;

interface Replica { name: string; operator: RunningOperator }

/** Who handled an object last (its update's result, else its creation's), and the change it handled. */
interface Handled { by: string; field: string | undefined }

function handledBy(object: KopfExample): Handled | null {
  const status = (object.status ?? {}) as Record<string, { by?: string; field?: string } | undefined>;
  const last = status.update_fn ?? status.create_fn;
  return last?.by ? { by: last.by, field: status.update_fn?.field } : null;
}

/** The replicas of one ring in one namespace, started and stopped as the benchmark says, and their journal. */
class Ring {
  readonly replicas: Replica[] = [];
  readonly journal: string;
  readonly #cp: ControlPlane;
  readonly #namespace: string;
  readonly #ring: string;
  #made = 0;

  constructor(cp: ControlPlane, namespace: string, ring: string, dir: string) {
    this.#cp = cp;
    this.#namespace = namespace;
    this.#ring = ring;
    this.journal = join(dir, `${ring}.journal`);
    writeFileSync(this.journal, '');
  }

  start(): Replica {
    const name = `r${this.#made++}`;
    const operator = runOperator({
      files: [OPERATOR], kubeconfigPath: this.#cp.kubeconfigPath, echo: false,
      args: ['--sharding', this.#ring, '-n', this.#namespace, '--verbose'],
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

async function ready(replica: Replica): Promise<void> {
  await replica.operator.waitFor(IN_RING, { timeout: 120_000 });
}

interface Scaling {
  replicas: number;
  handledSeconds: number;
  cpu: number[];
  peak: number[];
  shares: number[];
  writesPerObject: number;
}

async function scaling(cp: ControlPlane, client: KubeClient, dir: string, count: number): Promise<Scaling> {
  const namespace = `shard-${count}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const owners = new Map<string, string>();
  const observer = new Observer(client, KopfExample, namespace, (object) => {
    const handled = handledBy(object);
    if (handled) owners.set(object.metadata?.name ?? '', handled.by);
    return handled !== null;
  });
  await observer.ready;
  const ring = new Ring(cp, namespace, `bench-${count}`, dir);
  try {
    const replicas = Array.from({ length: count }, () => ring.start());
    await Promise.all(replicas.map(ready));
    const names = Array.from({ length: N }, (_, i) => `kex-${String(i).padStart(5, '0')}`);
    const writesBefore = await requestCounts(cp.credentials, 'kopfexamples');
    const cpuBefore = replicas.map((r) => cpuSeconds(r.operator.pid));
    const start = performance.now();
    await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    await observer.until(() => names.every((name) => observer.handledAt.has(name)), 600_000, 'all handled');
    const handled = Math.max(...names.map((name) => observer.handledAt.get(name)!));
    const cpu = replicas.map((r, i) => cpuSeconds(r.operator.pid) - cpuBefore[i]!);
    const writes = delta(writesBefore, await requestCounts(cp.credentials, 'kopfexamples'), ['PATCH', 'PUT']);
    const twice = ring.twice();
    if (twice.length) throw new Error(`handlers ran twice: ${twice.slice(0, 10).join('; ')}`);
    return {
      replicas: count, handledSeconds: (handled - start) / 1000, cpu,
      peak: replicas.map((r) => peakRssMiB(r.operator.pid)),
      shares: replicas.map((r) => [...owners.values()].filter((by) => by === r.name).length),
      writesPerObject: writes.total / N,
    };
  } finally {
    await ring.close();
    await observer.stop();
  }
}

interface Failover {
  killSeconds: number;
  stopSeconds: number;
  joinSeconds: number;
  joinedShare: number;
  twice: string[];
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
  const observer = new Observer(client, KopfExample, namespace, (object) => {
    const handled = handledBy(object);
    if (handled) latest.set(object.metadata?.name ?? '', handled);
    return false;
  });
  await observer.ready;
  const ring = new Ring(cp, namespace, 'bench-failover', dir);
  try {
    const [first, second, third] = [ring.start(), ring.start(), ring.start()];
    await Promise.all([first!, second!, third!].map(ready));
    const names = Array.from({ length: MOVED }, (_, i) => `moved-${String(i).padStart(4, '0')}`);
    await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    await observer.until(() => names.every((name) => latest.has(name)), 600_000, 'all handled');
    const of = (replica: Replica): string[] => names.filter((name) => latest.get(name)?.by === replica.name);

    const killed = of(first!);
    const killedAt = performance.now();
    await ring.stop(first!, 'SIGKILL');
    await change(client, observer, latest, namespace, killed, 'after-kill');
    const killSeconds = (performance.now() - killedAt) / 1000;

    const stopped = of(second!);
    const stoppedAt = performance.now();
    await ring.stop(second!);
    await change(client, observer, latest, namespace, stopped, 'after-stop');
    const stopSeconds = (performance.now() - stoppedAt) / 1000;

    const joining = ring.start();
    const joinedAt = performance.now();
    await change(client, observer, latest, namespace, names, 'joining');
    await ready(joining);
    const joinSeconds = (performance.now() - joinedAt) / 1000;
    await change(client, observer, latest, namespace, names, 'joined');
    return { killSeconds, stopSeconds, joinSeconds, joinedShare: of(joining).length, twice: ring.twice() };
  } finally {
    await ring.close();
    await observer.stop();
  }
}

function scalingTable(results: readonly Scaling[]): string {
  const base = results[0]!;
  const rows = [
    '| replicas | first create → all handled, s | / first row | CPU s per replica | CPU s / 1k objects (all) ' +
      '| peak RSS MiB per replica | shares (fair ±20%) | writes / object |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const fair = N / r.replicas;
    const within = r.shares.every((share) => Math.abs(share - fair) <= fair * 0.2);
    const cpu = r.cpu.reduce((a, b) => a + b, 0);
    rows.push(
      `| ${r.replicas} | ${r.handledSeconds.toFixed(1)} | ${(r.handledSeconds / base.handledSeconds).toFixed(2)} | ` +
        `${r.cpu.map((c) => c.toFixed(1)).join(', ')} | ${(cpu / N * 1000).toFixed(2)} | ` +
          `${r.peak.map((p) => p.toFixed(0)).join(', ')} | ${r.shares.join(', ')} ${within ? '(yes)' : '(NO)'} | ` +
            `${r.writesPerObject.toFixed(2)} |`,
    );
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
      process.stderr.write(`${count} replica(s), ${N} objects…\n`);
      results.push(await scaling(cp, client, dir, count));
      process.stderr.write(`  all handled in ${results.at(-1)!.handledSeconds.toFixed(1)} s\n`);
    }
    console.log(`\nScaling: ${N} objects, handlers waiting 50 ms, ${CONCURRENCY} concurrent clients.\n`);
    console.log(scalingTable(results));
    process.stderr.write(`failover: ${MOVED} objects on three replicas…\n`);
    const f = await failover(cp, client, dir);
    console.log(`\nFailover on a ring of three, ${MOVED} objects:\n`);
    console.log('| event | seconds until its objects were handled again |\n|---|---|');
    console.log(`| SIGKILL (Lease expiry) | ${f.killSeconds.toFixed(2)} |`);
    console.log(`| SIGTERM (clean stop) | ${f.stopSeconds.toFixed(2)} |`);
    console.log(`| a replica joins (every object changed meanwhile) | ${f.joinSeconds.toFixed(2)} |`);
    console.log(`\nThe joining replica's share: ${f.joinedShare} of ${MOVED}; handlers run twice: ${f.twice.length}`);
    if (f.twice.length) console.log(f.twice.slice(0, 20).join('\n'));
  } finally {
    client.close();
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
