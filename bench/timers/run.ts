/**
 * Timers benchmark: N KopfExample objects, each with one timer (every second, returning nothing)
 * and one daemon (looping on `stopped.wait(1)`), served by this runtime and by Python Kopf 1.44
 * with the same handlers (operator.ts, operator_kopf.py), one after the other on one local control
 * plane, each in a fresh namespace.
 *
 *   node bench/timers/run.ts [--n 1000] [--contestants ts,kopf,before] [--settle 10] [--window 30]
 *     [--before DIR]
 *
 * Per contestant:
 *   - idle memory: the operator's resident memory (VmRSS) `settle` seconds after its startup;
 *   - the objects are created (32 concurrent clients) and counted as served when a watch sees
 *     the finalizer, which timers and daemons need; after `settle` more seconds, the steady state
 *     is measured over `window` seconds: the operator's CPU seconds (/proc utime+stime) per 1,000
 *     timer calls (its "Timer 'tick' succeeded." lines, both log them), and its resident memory
 *     per 1,000 objects above the idle figure;
 *   - deletion: all objects are deleted; the seconds from the first request until every object is
 *     gone (a daemon holds its object's finalizer until it has exited);
 *   - exit: the objects are created again and served; the seconds from SIGTERM until the process
 *     has exited (after every daemon has).
 * `before` runs this operator from another tree of the runtime (`--before`, a checkout with its
 * node_modules), to measure a change side by side with the code before it.
 * The machine is shared by the API server, etcd and the operator: compare contestants within one
 * run, never across runs.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createObject, deleteObject, KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { FINALIZER } from '../../test/e2e/rules.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { Observer } from '../burst/observer.ts';
import { cpuSeconds, rssMiB } from '../burst/procstat.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions, chosen } from '../lib/options.ts';
import { markdownTable } from '../lib/tables.ts';

interface Contestant { name: string; label: string; files: string[]; command?: string[] }

interface Measurement {
  contestant: string;
  n: number;
  idleRssMiB: number;
  ticks: number;
  cpuPer1kTicks: number;
  rssPer1kObjectsMiB: number;
  deletionSeconds: number;
  sigtermSeconds: number;
  exitCode: number | null;
}

const values = benchOptions({ n: 1000, contestants: 'ts,kopf', settle: 10, window: 30, before: undefined });
const N = values.n;
const SETTLE = values.settle;
const WINDOW = values.window;
const CONCURRENCY = 32;
const CLI = join(import.meta.dirname, '../../runtime/cli/main.ts');
const TICK = /Timer 'tick' succeeded\./;

async function contestants(): Promise<Contestant[]> {
  const all: Record<string, () => Promise<Contestant>> = {
    ts: async () => (
      {
        name: 'ts',
        label: `this runtime (Node ${process.versions.node})`,
        files: [join(import.meta.dirname, 'operator.ts')],
        command: [process.execPath, CLI, 'run'],
      }
    ),
    before: async () => {
      if (!values.before) throw new Error('The contestant `before` needs --before DIR, the other tree');
      return {
        name: 'before',
        label: `this runtime before, from ${values.before}`,
        files: [join(values.before, 'bench/timers/operator.ts')],
        command: [process.execPath, join(values.before, 'runtime/cli/main.ts'), 'run'],
      };
    },
    kopf: async () => (
      {
        name: 'kopf',
        label: 'Python Kopf 1.44',
        files: [join(import.meta.dirname, 'operator_kopf.py')],
        command: await kopfRunCommand(),
      }
    ),
  };
  return Promise.all(chosen(values.contestants, all).map((make) => make()));
}

function countTicks(operator: RunningOperator, from: number): number {
  let ticks = 0;
  for (let i = from; i < operator.lines.length; i++) if (TICK.test(operator.lines[i]!)) ticks++;
  return ticks;
}

/** Creates the objects and waits until the operator has put its finalizer on every one. */
async function createAll(
  client: KubeClient,
  observer: Observer<KopfExample>,
  namespace: string,
  names: string[],
): Promise<void> {
  await pool(names, CONCURRENCY, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
  await observer.until(
    () => names.every((name) => observer.handledAt.has(name)),
    120_000 + names.length * 100,
    'all served',
  );
}

async function measure(cp: ControlPlane, client: KubeClient, contestant: Contestant): Promise<Measurement> {
  const namespace = `timers-${contestant.name}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const served = (object: KopfExample) => Boolean(object.metadata?.finalizers?.includes(FINALIZER));
  const operator = runOperator(
    {
      command: contestant.command,
      files: contestant.files,
      args: ['--standalone', '--namespace', namespace],
      kubeconfigPath: cp.kubeconfigPath,
    }
  );
  let observer = new Observer(client, KopfExample, namespace, served);
  try {
    await observer.ready;
    await operator.waitFor('Configured for the timers benchmark.', { timeout: 60_000 });
    await sleep(SETTLE * 1000);
    const idleRssMiB = rssMiB(operator.pid);
    const names = Array.from({ length: N }, (_, i) => `kex-${String(i).padStart(5, '0')}`);
    await createAll(client, observer, namespace, names);
    await sleep(SETTLE * 1000);

    const lines = operator.lines.length;
    const cpuBefore = cpuSeconds(operator.pid);
    await sleep(WINDOW * 1000);
    const cpu = cpuSeconds(operator.pid) - cpuBefore;
    const ticks = countTicks(operator, lines);
    const steadyRssMiB = rssMiB(operator.pid);

    const deleting = performance.now();
    await pool(names, CONCURRENCY, (name) => deleteObject(client, KopfExample, { namespace, name }));
    await observer.until(() => names.every((name) => observer.goneAt.has(name)), 120_000 + N * 100, 'all gone');
    const deletionSeconds = (Math.max(...names.map((name) => observer.goneAt.get(name)!)) - deleting) / 1000;

    await observer.stop();
    observer = new Observer(client, KopfExample, namespace, served);
    await observer.ready;
    await createAll(client, observer, namespace, names);
    await sleep(SETTLE * 1000);
    const stopping = performance.now();
    const exit = await operator.stop({ timeout: 300_000 });
    const sigtermSeconds = (performance.now() - stopping) / 1000;
    return {
      contestant: contestant.name, n: N, idleRssMiB, ticks,
      cpuPer1kTicks: cpu / ticks * 1000,
      rssPer1kObjectsMiB: (steadyRssMiB - idleRssMiB) / N * 1000,
      deletionSeconds, sigtermSeconds, exitCode: exit.exitCode,
    };
  } finally {
    await operator.stop({ timeout: 300_000 });
    await observer.stop();
  }
}

function table(results: Measurement[], labels: Map<string, string>): string {
  const header = [
    'contestant', 'N', 'idle RSS MiB', 'timer calls in the window', 'CPU s / 1k timer calls', 'RSS MiB / 1k objects',
    'deletion → all gone, s', 'SIGTERM → exit, s', 'exit',
  ];
  const rows = [markdownTable(header, results.map((r) => [
    labels.get(r.contestant)!, String(r.n), r.idleRssMiB.toFixed(0), String(r.ticks), r.cpuPer1kTicks.toFixed(3),
    r.rssPer1kObjectsMiB.toFixed(1), r.deletionSeconds.toFixed(1), r.sigtermSeconds.toFixed(1), String(r.exitCode),
  ]))];
  const ts = results.find((r) => r.contestant === 'ts');
  const kopf = results.find((r) => r.contestant === 'kopf');
  if (ts && kopf) {
    rows.push(
      '',
      `Ratios to Kopf: CPU per timer call ${(ts.cpuPer1kTicks / kopf.cpuPer1kTicks).toFixed(2)}× (aim ≤ 0.2×), ` +
        `memory per object ${(ts.rssPer1kObjectsMiB / kopf.rssPer1kObjectsMiB).toFixed(2)}× (aim ≤ 0.33×), deletion ` +
          `${(ts.deletionSeconds / kopf.deletionSeconds).toFixed(2)}×, SIGTERM ` +
            `${(ts.sigtermSeconds / kopf.sigtermSeconds).toFixed(2)}×.`,
    );
  }
  const before = results.find((r) => r.contestant === 'before');
  if (ts && before) {
    rows.push(
      '',
      `Against the tree before: CPU per timer call ${(ts.cpuPer1kTicks / before.cpuPer1kTicks).toFixed(2)}×, ` +
        `memory per object ${(ts.rssPer1kObjectsMiB / before.rssPer1kObjectsMiB).toFixed(2)}×` +
          (kopf ? ` (before: ${(before.rssPer1kObjectsMiB / kopf.rssPer1kObjectsMiB).toFixed(2)}× Kopf's).` : '.'),
    );
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const entrants = await contestants();
  const labels = new Map(entrants.map((c) => [c.name, c.label]));
  const results: Measurement[] = [];
  await onControlPlane(async (cp, client) => {
    for (const contestant of entrants) {
      process.stderr.write(`${contestant.label}, ${N} objects…\n`);
      const result = await measure(cp, client, contestant);
      results.push(result);
      process.stderr.write(`  ${JSON.stringify(result)}\n`);
    }
  });
  console.log(
    `\nTimers: ${N} KopfExample objects, each with a timer (1 s) and a daemon; steady state over ${WINDOW} s after ` +
      `${SETTLE} s.\n`
  );
  console.log(table(results, labels));
}

await main();
