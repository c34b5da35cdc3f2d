/**
 * Burst benchmark: N KopfExample objects created at once by concurrent clients, then deleted,
 * served by this runtime and by Python Kopf 1.44 with the same handlers (operator.ts,
 * operator_kopf.py), on one local control plane, each run in a fresh namespace, contestants
 * alternating.
 *
 *   node bench/burst/run.ts [--n 1000] [--contestants ts,built,floor,kopf,ts+metrics,built+metrics,ts+conditions]
 *     [--repeat 1]
 *     [--concurrency 32]
 *     [--warmup 20] [--operator-args '…'] [--node-args '…'] [--operator-cpus 1]
 *
 * `floor` is no operator but the least a Node process does for the same writes on this runtime's
 * API layer (floor.ts): what the runtime's engines add shows against it, and what it costs itself
 * is the part of the aims that no framework code can take away. `ts+metrics` and `built+metrics` are
 * `ts` and `built` serving their metrics (`--metrics`, never scraped during the burst): what keeping
 * them costs shows against the same runtime without them in the same run. `ts+conditions` is `ts` keeping
 * the status that tools read (settings.status.conditions), folded into the same writes.
 *
 * `--operator-cpus` pins the operators to those CPUs and everything else (the control plane, the
 * load) to the others, as in a cluster where the operator runs on a node of its own: the operator
 * does not share its caches with the API server, and the API server, with fewer CPUs, goes slower.
 *
 * Per run: seconds from the first create to all handled (handled = seen by a watch with the
 * creation result in status, the finalizer, and the diff-base); full-cycle objects/s (first
 * create to all gone); the operator's CPU seconds per 1,000 objects (/proc utime+stime) and the
 * kernel's share of it (system calls, loopback TCP); API writes per object (PATCH/PUT on
 * kopfexamples, from the apiserver's apiserver_request_total); peak RSS (VmHWM); where `perf` is
 * installed, the operator's instructions per object and per cycle (counters.ts). Then the ratios
 * to Kopf, and to the floor if it ran. A warm-up of a few objects precedes each measured burst.
 * The machine is shared by the apiserver, etcd, the operator and the load: compare contestants
 * within one run, never across runs.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { createObject, deleteObject, KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { DIFF_BASE, FINALIZER } from '../../test/e2e/rules.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { delta, requestCounts } from '../../test/e2e/metrics.ts';
import { exampleObject, pool } from './objects.ts';
import { Observer } from './observer.ts';
import { cpuSeconds, cpuTimes, peakRssMiB } from './procstat.ts';
import { countHardware } from './counters.ts';
import { buildOperator, type BuiltOperator } from './built.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions, chosen, words } from '../lib/options.ts';
import { fixed, markdownTable, mean } from '../lib/tables.ts';

interface Contestant {
  name: string;
  label: string;
  files: string[];
  command?: string[];
  /** Options of its own for `kopf run`, after the common ones. */
  args?: string[];
}

interface Measurement {
  contestant: string;
  run: number;
  n: number;
  /** First create → all handled. */
  handledSeconds: number;
  /** First create → all gone. */
  cycleSeconds: number;
  cpuPer1k: number;
  /** The kernel's part of the operator's CPU (system time), 0–1: what its system calls cost. */
  kernelShare: number;
  /** Millions of instructions per object (billions per 1k); null without `perf`. */
  instructionsPerObject: number | null;
  /** Instructions per cycle over the burst; null without `perf`. */
  ipc: number | null;
  apiServerCpuPer1k: number;
  writesPerObject: number;
  conflicts: number;
  peakRssMiB: number;
  /** SIGTERM → exit. */
  stopSeconds: number;
  exitCode: number | null;
}

const values = benchOptions({
  n: 1000, contestants: 'ts,kopf', repeat: 1, concurrency: 32, warmup: 20,
  'operator-args': '', 'node-args': '', 'operator-cpus': '',
});
const N = values.n;
const REPEAT = values.repeat;
const CONCURRENCY = values.concurrency;
const WARMUP = values.warmup;
/** Extra options for every contestant's `kopf run` (for experiments, e.g. `--quiet`). */
const EXTRA_ARGS = words(values['operator-args']);
/** Node's options for this runtime's contestants (for experiments, e.g. V8's heap flags). */
const NODE_ARGS = words(values['node-args']);
const OPERATOR_CPUS = values['operator-cpus'];
if (OPERATOR_CPUS) {
  // Set before the control plane starts: its processes inherit this process's CPUs.
  const all = Array.from({ length: availableParallelism() }, (_, cpu) => cpu);
  const pinned = new Set(OPERATOR_CPUS.split(',').map(Number));
  // A CPU that is not a number here (a range, say) would leave the operators beside the control plane unnoticed.
  if ([...pinned].some((cpu) => !all.includes(cpu)))
    throw new Error(
      `--operator-cpus takes CPU numbers from 0 to ${all.length - 1}, separated by commas; got '${OPERATOR_CPUS}'`
    );
  const others = all.filter((cpu) => !pinned.has(cpu));
  if (!others.length) throw new Error(`--operator-cpus ${OPERATOR_CPUS} leaves no CPU for the control plane`);
  execFileSync('taskset', ['-p', '-c', others.join(','), String(process.pid)], { stdio: 'ignore' });
}
/** The operator's command, on its own CPUs if asked (`taskset` execs it: the pid stays the operator's). */
function onOperatorCpus(command: string[]): string[] {
  return OPERATOR_CPUS ? ['taskset', '-c', OPERATOR_CPUS, ...command] : command;
}
const CLI = join(import.meta.dirname, '../../runtime/cli/main.ts');
/** The metrics on a free port of loopback: kept, served, and not scraped. */
const METRICS_ARGS = ['--metrics', 'http://127.0.0.1:0/metrics'];

function isHandled(object: KopfExample): boolean {
  return Boolean(object.status?.create_fn) && Boolean(object.metadata?.finalizers?.includes(FINALIZER)) && Boolean(
    object.metadata?.annotations?.[DIFF_BASE]
  );
}

let builtRuntime: BuiltOperator | undefined;
/** The built runtime, shared by the contestants that run on it; removed when the benchmark exits. */
function builtOnce(): BuiltOperator {
  if (!builtRuntime) {
    builtRuntime = buildOperator();
    process.once('exit', builtRuntime.remove);
  }
  return builtRuntime;
}

async function contestants(): Promise<Contestant[]> {
  const all: Record<string, () => Promise<Contestant>> = {
    ts: async () => (
      {
        name: 'ts',
        label: `this runtime (Node ${process.versions.node})`,
        files: [join(import.meta.dirname, 'operator.ts')],
        command: onOperatorCpus([process.execPath, ...NODE_ARGS, CLI, 'run']),
      }
    ),
    built: async () => {
      const built = builtOnce();
      return {
        name: 'built',
        label: `this runtime, built (Node ${process.versions.node})`,
        files: [built.file],
        command: onOperatorCpus([process.execPath, ...NODE_ARGS, built.cli, 'run']),
      };
    },
    'ts+metrics': async () => withMetrics(await all.ts!()),
    'built+metrics': async () => withMetrics(await all.built!()),
    'ts+conditions': async () => withConditions(await all.ts!()),
    floor: async () => (
      {
        name: 'floor',
        label: `floor: API layer and queue only, built (Node ${process.versions.node})`,
        files: [],
        command: onOperatorCpus([process.execPath, ...NODE_ARGS, builtOnce().floor]),
      }
    ),
    kopf: async () => (
      {
        name: 'kopf',
        label: 'Python Kopf 1.44',
        files: [join(import.meta.dirname, 'operator_kopf.py')],
        command: onOperatorCpus(await kopfRunCommand()),
      }
    ),
  };
  return Promise.all(chosen(values.contestants, all).map((make) => make()));
}

/** The same contestant, keeping the status that tools read (settings.status.conditions, conditions.ts). */
function withConditions(contestant: Contestant): Contestant {
  return {
    ...contestant, name: `${contestant.name}-conditions`, label: `${contestant.label}, status conditions on`,
    files: [...contestant.files, join(import.meta.dirname, 'conditions.ts')],
  };
}

/** The same contestant, keeping and serving its metrics. */
function withMetrics(contestant: Contestant): Contestant {
  const { name, label } = contestant;
  return { ...contestant, name: `${name}-metrics`, label: `${label}, metrics on`, args: METRICS_ARGS };
}

/** The condition, unless the operator exits first (then its last lines explain why). */
function guarded<T>(operator: RunningOperator, wait: Promise<T>): Promise<T> {
  const died = operator.exited.then((exit) => {
    throw new Error(
      `The operator exited (code ${exit.exitCode}, signal ${exit.signal}) during the ` +
        `benchmark:\n${operator.lines.slice(-30).join('\n')}`
    );
  });
  return Promise.race([wait, died]);
}

async function burst(
  client: KubeClient,
  observer: Observer<KopfExample>,
  operator: RunningOperator,
  namespace: string,
  names: string[],
): Promise<{ handled: number; gone: number; start: number }> {
  const timeout = 120_000 + names.length * 100;
  const start = performance.now();
  await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
  await guarded(
    operator,
    observer.until(() => names.every((name) => observer.handledAt.has(name)), timeout, 'all handled'),
  );
  const handled = Math.max(...names.map((name) => observer.handledAt.get(name)!));
  await pool(names, CONCURRENCY, (name) => deleteObject(client, KopfExample, { namespace, name }));
  await guarded(operator, observer.until(() => names.every((name) => observer.goneAt.has(name)), timeout, 'all gone'));
  const gone = Math.max(...names.map((name) => observer.goneAt.get(name)!));
  return { handled, gone, start };
}

async function measure(
  cp: ControlPlane,
  client: KubeClient,
  contestant: Contestant,
  run: number,
): Promise<Measurement> {
  const namespace = `burst-${contestant.name}-${run}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const observer = new Observer(client, KopfExample, namespace, isHandled);
  await observer.ready;
  const operator = runOperator({ command: contestant.command, files: contestant.files, args: [
    '--standalone',
    '--namespace',
    namespace,
    ...EXTRA_ARGS,
    ...contestant.args ?? [],
  ], kubeconfigPath: cp.kubeconfigPath,
  });
  try {
    const warmup = Array.from({ length: WARMUP }, (_, i) => `warmup-${i}`);
    await burst(client, observer, operator, namespace, warmup);

    const names = Array.from({ length: N }, (_, i) => `kex-${String(i).padStart(5, '0')}`);
    const requestsBefore = await requestCounts(cp.credentials, 'kopfexamples');
    const cpuBefore = cpuTimes(operator.pid);
    const apiServerCpuBefore = cpuSeconds(cp.apiServerPid);
    const counters = countHardware(operator.pid);
    const { start, handled, gone } = await burst(client, observer, operator, namespace, names);
    const cpuAfter = cpuTimes(operator.pid);
    const system = cpuAfter.system - cpuBefore.system;
    const cpu = cpuAfter.user - cpuBefore.user + system;
    const counts = await counters.stop();
    const apiServerCpu = cpuSeconds(cp.apiServerPid) - apiServerCpuBefore;
    const writes = delta(requestsBefore, await requestCounts(cp.credentials, 'kopfexamples'), ['PATCH', 'PUT']);
    const peak = peakRssMiB(operator.pid);
    const stopping = performance.now();
    const exit = await operator.stop({ timeout: 60_000 });
    const stopSeconds = (performance.now() - stopping) / 1000;
    return {
      contestant: contestant.name, run, n: N,
      handledSeconds: (handled - start) / 1000,
      cycleSeconds: (gone - start) / 1000,
      cpuPer1k: cpu / N * 1000,
      kernelShare: system / cpu,
      instructionsPerObject: counts && counts.instructions / N / 1e6,
      ipc: counts && counts.instructions / counts.cycles,
      apiServerCpuPer1k: apiServerCpu / N * 1000,
      writesPerObject: writes.total / N,
      conflicts: writes.conflicts,
      peakRssMiB: peak,
      stopSeconds,
      exitCode: exit.exitCode,
    };
  } finally {
    await operator.stop({ timeout: 60_000 });
    await observer.stop();
  }
}

function table(results: Measurement[], labels: Map<string, string>): string {
  const header = [
    'contestant', 'run', 'N', 'first create → all handled, s', 'handled/s', 'full cycle, s', 'full-cycle obj/s',
    'operator CPU s / 1k', 'of it kernel', 'instructions / object, M', 'instructions / cycle', 'apiserver CPU s / 1k',
    'writes / object', 'conflicts', 'peak RSS MiB', 'stop, s', 'exit',
  ];
  return markdownTable(header, results.map((r) => [
    labels.get(r.contestant)!, String(r.run), String(r.n), r.handledSeconds.toFixed(2),
    (r.n / r.handledSeconds).toFixed(1), r.cycleSeconds.toFixed(2), (r.n / r.cycleSeconds).toFixed(1),
    r.cpuPer1k.toFixed(2), `${(r.kernelShare * 100).toFixed(0)}%`, fixed(r.instructionsPerObject, 2), fixed(r.ipc, 2),
    r.apiServerCpuPer1k.toFixed(2), r.writesPerObject.toFixed(2), String(r.conflicts), r.peakRssMiB.toFixed(0),
    r.stopSeconds.toFixed(1), String(r.exitCode),
  ]));
}

/**
 * The means of each contestant's runs over the baseline's (Kopf's; the floor's, for what the
 * runtime adds to it), one column per contestant; `null` if the baseline or the others did not run.
 */
function ratios(
  results: Measurement[],
  labels: Map<string, string>,
  baseline: { name: string; short: string },
  skip: readonly string[] = [],
): string | null {
  const meanOf = (name: string, pick: (m: Measurement) => number): number => (
    mean(results.filter((m) => m.contestant === name).map(pick))
  );
  const others = [...new Set(results.map((m) => m.contestant))].filter(
    (name) => name !== baseline.name && !skip.includes(name)
  );
  if (!others.length || !results.some((m) => m.contestant === baseline.name)) return null;
  const metrics: [string, (m: Measurement) => number, string][] = [
    ['first create → all handled (time)', (m) => m.handledSeconds, 'lower is better'],
    ['full-cycle objects/s', (m) => m.n / m.cycleSeconds, 'higher is better'],
    ['operator CPU s / 1k objects', (m) => m.cpuPer1k, 'lower is better'],
    [
      'operator instructions / object',
      (m) => m.instructionsPerObject ?? NaN,
      'lower is better (steadier than CPU time)',
    ],
    ['writes / object', (m) => m.writesPerObject, 'lower is better'],
    ['peak RSS', (m) => m.peakRssMiB, 'lower is better'],
  ];
  const header = ['metric (means)', ...others.map((name) => `${labels.get(name)} / ${baseline.short}`), ''];
  const ratio = (name: string, pick: (m: Measurement) => number): string => (
    fixed(meanOf(name, pick) / meanOf(baseline.name, pick), 2)
  );
  return markdownTable(header, metrics.map(([title, pick, note]) => [
    title, ...others.map((name) => ratio(name, pick)), note,
  ]));
}

async function main(): Promise<void> {
  const entrants = await contestants();
  const labels = new Map(entrants.map((c) => [c.name, c.label]));
  const results: Measurement[] = [];
  await onControlPlane(async (cp, client) => {
    for (let run = 1; run <= REPEAT; run++) {
      const order = run % 2 ? entrants : [...entrants].reverse();
      for (const contestant of order) {
        process.stderr.write(`run ${run}: ${contestant.label}, ${N} objects…\n`);
        const result = await measure(cp, client, contestant, run);
        results.push(result);
        process.stderr.write(
          `  all handled in ${result.handledSeconds.toFixed(2)} s, full cycle ${result.cycleSeconds.toFixed(2)} s\n`
        );
      }
    }
  });
  console.log(
    `\nBurst: ${N} KopfExample objects, ${CONCURRENCY} concurrent clients, ${WARMUP} warm-up objects first, one ` +
      `local control plane.\n`
  );
  console.log(table(results, labels));
  for (
    const summary of [
      ratios(results, labels, { name: 'kopf', short: 'Kopf' }),
      ratios(results, labels, { name: 'floor', short: 'floor' }, ['kopf']),
    ]
  ) {
    if (summary) console.log(`\n${summary}`);
  }
}

await main();
