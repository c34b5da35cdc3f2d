/**
 * Reconcile benchmark: N KopfExample objects, each owning one ConfigMap of its name (a controller
 * owner reference) kept by a level-triggered reconciler — this runtime's `on.reconcile`
 * (operator.ts) and controller-runtime's (controller-runtime/main.go, built by gobuild.ts) — one
 * after the other on one local control plane, each in a fresh namespace.
 *
 *   node bench/reconcile/run.ts [--n 300] [--contestants built,controller-runtime] [--repeat 1]
 *     [--concurrency 32] [--workers 1]
 *
 * `built` runs this runtime as the published package (compiled JavaScript, as an image runs it;
 * bench/burst/built.ts), `ts` from its TypeScript sources (Node's type stripper loaded: more memory).
 *
 * `--workers` is controller-runtime's MaxConcurrentReconciles (its default is 1); this runtime
 * runs the objects' queues side by side, with no such setting.
 *
 * Per run: once the operator serves a first object (a warm-up, not counted), the objects are
 * created by concurrent clients, and the seconds from the first create until every child exists
 * are noted (code not yet compiled by the JIT included). Once the
 * operator's reconcile count has stopped moving, every child is deleted by hand (the same
 * clients): the seconds from the first deletion until every name has a new child; then, once the
 * count has stopped moving again (the runs that the new children's own events call for are part
 * of the work), the operator's reconciles in that phase (both count them and print the count on
 * SIGUSR2), its CPU time (/proc utime+stime) per reconcile and per restored child; its resident
 * memory when idle before the objects came, and its peak (VmHWM) at the end. Then the ratios to
 * controller-runtime.
 * The machine is shared by the API server, etcd and the operator: compare contestants within one
 * run, never across runs.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createObject, deleteObject, isNotFound, KubeClient } from '../../runtime/kube/index.ts';
import { ConfigMaps, Namespaces } from '../../runtime/structs/builtins.ts';
import { startControlPlane, runOperator, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { cpuSeconds, peakRssMiB, rssMiB } from '../burst/procstat.ts';
import { buildOperator } from '../burst/built.ts';
import { watchChildren } from './children.ts';
import { reconcileCount } from './counting.ts';
import { buildControllerRuntime } from './gobuild.ts';
import { ratiosLine, table, type Measurement } from './report.ts';
import { benchOptions } from '../lib/options.ts';

interface Contestant { name: string; label: string; command: string[]; files: string[]; args: string[] }

const values = benchOptions({
  n: 300, contestants: 'built,controller-runtime', repeat: 1, concurrency: 32, workers: 1,
});
const N = values.n;
const REPEAT = values.repeat;
const CONCURRENCY = values.concurrency;
const WORKERS = values.workers;
const CLI = join(import.meta.dirname, '../../runtime/cli/main.ts');
const READY = 'Configured for the reconcile benchmark.';
const WARMUP = 'warmup';
/** How long the reconcile count must stay still for the operator to count as done with a phase. */
const STILL_MS = 1000;

/** This runtime as the published package, with the benchmark's operator beside it as JavaScript. */
function builtContestant(): Contestant {
  const built = buildOperator();
  process.once('exit', built.remove);
  const file = built.add('bench/reconcile/operator.ts', 'reconcile.js');
  return {
    name: 'built', label: `this runtime, built (Node ${process.versions.node})`,
    command: [process.execPath, built.cli, 'run'], files: [file], args: ['--standalone', '--namespace'],
  };
}

/** The contestants asked for; controller-runtime is left out, with the reason, if it cannot be built. */
async function contestants(): Promise<Contestant[]> {
  const entrants: Contestant[] = [];
  for (const name of values.contestants.split(',').map((n) => n.trim())) {
    if (name === 'ts') {
      entrants.push({
        name, label: `this runtime (Node ${process.versions.node})`, command: [process.execPath, CLI, 'run'],
        files: [join(import.meta.dirname, 'operator.ts')], args: ['--standalone', '--namespace'],
      });
    } else if (name === 'built') {
      entrants.push(builtContestant());
    } else if (name === 'controller-runtime') {
      const built = await buildControllerRuntime();
      if ('skipped' in built) {
        process.stderr.write(`controller-runtime is skipped: ${built.skipped}\n`);
        continue;
      }
      entrants.push({
        name, label: `controller-runtime v0.24.1, ${WORKERS} worker(s)`, command: [built.binary],
        files: [], args: ['--workers', String(WORKERS), '--namespace'],
      });
    } else {
      throw new Error(`Unknown contestant '${name}': use built, ts, controller-runtime`);
    }
  }
  return entrants;
}

async function measure(
  kubeconfigPath: string, client: KubeClient, contestant: Contestant, run: number,
): Promise<Measurement> {
  const namespace = `reconcile-${contestant.name}-${run}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const names = Array.from({ length: N }, (_, i) => `kex-${String(i).padStart(5, '0')}`);
  const { present, observer: children } = watchChildren(client, namespace);
  const operator = runOperator({
    command: contestant.command, files: contestant.files, args: [...contestant.args, namespace], kubeconfigPath,
  });
  try {
    await children.ready;
    await operator.waitFor(READY, { timeout: 60_000 });
    const idle = rssMiB(operator.pid);
    // One object served before the measured ones: both operators are watching by then (this
    // runtime says it is ready before its watches have started, controller-runtime after).
    await createObject(client, KopfExample, exampleObject(WARMUP), { namespace });
    await children.until(() => present.has(WARMUP), 60_000, 'the warm-up object served');
    const timeout = 120_000 + N * 100;

    const creating = performance.now();
    await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    const created = await children.until(() => names.every((name) => present.has(name)), timeout, 'all made');

    const originals = new Map(present);
    // The creation's last runs (for the children's own events) are not the deletion's.
    const reconcilesBefore = await stillCount(operator);
    const cpuBefore = cpuSeconds(operator.pid);
    const deleting = performance.now();
    await pool(names, CONCURRENCY, (name) => deleteObject(client, ConfigMaps, { namespace, name }).catch(ignoreGone));
    const back = await children.until(
      () => names.every((name) => present.has(name) && present.get(name) !== originals.get(name)),
      timeout,
      'all back',
    );
    const reconciles = await stillCount(operator) - reconcilesBefore;
    const cpu = cpuSeconds(operator.pid) - cpuBefore;
    const peak = peakRssMiB(operator.pid);
    const exit = await operator.stop({ timeout: 60_000 });
    return {
      contestant: contestant.name, run, n: N,
      madeSeconds: (created - creating) / 1000,
      backSeconds: (back - deleting) / 1000,
      reconciles,
      cpuMsPerReconcile: cpu / reconciles * 1000,
      cpuMsPerChild: cpu / N * 1000,
      idleRssMiB: idle,
      peakRssMiB: peak,
      exitCode: exit.exitCode,
    };
  } finally {
    await operator.stop({ timeout: 60_000 });
    await children.stop();
    // No garbage collector on the local control plane: the next contestant's API server starts clean of these.
    await pool([...names, WARMUP], CONCURRENCY, async (name) => {
      await deleteObject(client, KopfExample, { namespace, name }).catch(ignoreGone);
      await deleteObject(client, ConfigMaps, { namespace, name }).catch(ignoreGone);
    });
  }
}

/** The reconcile count once it has not moved for STILL_MS: the operator has done what it was called for. */
async function stillCount(operator: RunningOperator): Promise<number> {
  let count = await reconcileCount(operator);
  for (;;) {
    await sleep(STILL_MS);
    const next = await reconcileCount(operator);
    if (next === count) return count;
    count = next;
  }
}

function ignoreGone(error: unknown): void {
  if (!isNotFound(error)) throw error;
}

async function main(): Promise<void> {
  const entrants = await contestants();
  const labels = new Map(entrants.map((c) => [c.name, c.label]));
  const cp = await startControlPlane();
  const client = KubeClient.fromKubeConfig(cp.kubeconfig);
  const results: Measurement[] = [];
  try {
    await cp.installCrds([CRD_YAML]);
    for (let run = 1; run <= REPEAT; run++) {
      for (const contestant of entrants) {
        process.stderr.write(`${contestant.label}, run ${run}, ${N} objects…\n`);
        const result = await measure(cp.kubeconfigPath, client, contestant, run);
        results.push(result);
        process.stderr.write(`  ${JSON.stringify(result)}\n`);
      }
    }
  } finally {
    client.close();
    await cp.stop();
  }
  console.log(
    `\nReconcile: ${N} KopfExample objects, each owning one ConfigMap; every child deleted by hand, ` +
      'until all are back.\n'
  );
  console.log(table(results, labels));
  for (const ours of ['built', 'ts']) {
    const ratios = ratiosLine(results, ours, 'controller-runtime');
    if (ratios) console.log(`\n${labels.get(ours)}: ${ratios}`);
  }
}

await main();
