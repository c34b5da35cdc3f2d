/**
 * Admission benchmark: the latency of creating a KopfExample through the real API server, with no
 * webhooks, and with one validating and one mutating webhook served by this runtime (operator.ts)
 * and by Python Kopf 1.44 (operator_kopf.py), on one local control plane, contestants alternating.
 *
 *   node bench/admission/run.ts [--n 500] [--contestants none,ts,floor,kopf] [--repeat 1] [--warmup 20]
 *     [--operator-args '…']
 *
 * `floor` is no framework but the least a Node process does to serve the same webhooks (floor.ts).
 *
 * Per run: p50, p90 and p99 of N creates sent one after another (each in a fresh namespace), and the
 * operator's CPU per 1,000 reviews. Then what each operator adds to the median and to the 99th
 * percentile over the runs without webhooks, and the runtime's addition as a share of Kopf's.
 * Before measuring, the benchmark waits until the API server calls both webhooks (it reads their
 * configurations through a cache). The machine is shared by the API server, etcd, the operator
 * and the load: compare contestants within one run, never across runs.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { ApiError, createObject, KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { cpuSeconds } from '../burst/procstat.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions, chosen, words } from '../lib/options.ts';
import { median, tableHead, tableRow } from '../lib/tables.ts';

interface Contestant {
  name: string;
  label: string;
  /** The operator to run; none for the runs without webhooks. */
  operator?: { files: string[]; command?: string[] };
}

interface Measurement {
  contestant: string;
  run: number;
  p50: number;
  p90: number;
  p99: number;
  /** The operator's CPU seconds per 1,000 creates; null without an operator. */
  cpuPer1k: number | null;
}

const values = benchOptions({ n: 500, contestants: 'none,ts,floor,kopf', repeat: 1, warmup: 20, 'operator-args': '' });
const N = values.n;
const REPEAT = values.repeat;
const WARMUP = values.warmup;
/** Extra options for every operator's `kopf run` (for experiments, e.g. `--quiet`). */
const EXTRA_ARGS = words(values['operator-args']);

async function contestants(): Promise<Contestant[]> {
  const all: Record<string, () => Promise<Contestant>> = {
    none: async () => ({ name: 'none', label: 'no webhooks' }),
    ts: async () => ({
      name: 'ts', label: 'this runtime', operator: { files: [join(import.meta.dirname, 'operator.ts')] },
    }),
    floor: async () => ({
      name: 'floor', label: 'floor (no framework)',
      operator: { files: [], command: [process.execPath, join(import.meta.dirname, 'floor.ts')] },
    }),
    kopf: async () => ({
      name: 'kopf', label: 'Kopf 1.44',
      operator: { files: [join(import.meta.dirname, 'operator_kopf.py')], command: await kopfRunCommand() },
    }),
  };
  return Promise.all(chosen(values.contestants, all).map((make) => make()));
}

/** Sends dry-run creates of a probe until the validator refuses one that the mutator changed. */
async function untilAdmitting(client: KubeClient): Promise<void> {
  const probe = { metadata: { name: 'probe', namespace: 'default', labels: { probe: 'yes' } }, spec: {} };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const error = await createObject(client, KopfExample, probe, { dryRun: true })
      .then(() => undefined, (e: unknown) => e);
    if (error instanceof ApiError && error.message.includes('probed, injected 123')) return;
    if (Date.now() > deadline) throw new Error(`The webhooks are not called: ${String(error)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Without an operator, no webhook may be called: the configurations keep no webhooks after an exit. */
async function untilUnadmitting(client: KubeClient): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const plain = { metadata: { name: 'plain', namespace: 'default' }, spec: {} };
    const object = await createObject(client, KopfExample, plain, { dryRun: true });
    if (object.spec?.injected === undefined) return;
    if (Date.now() > deadline) throw new Error('The webhooks are still called after the operator stopped.');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function creates(
  client: KubeClient, namespace: string, prefix: string, n: number, mutated: boolean,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const object = { metadata: { name: `${prefix}-${i}`, namespace }, spec: { field: 'fine' } };
    const created = await createObject(client, KopfExample, object);
    times.push(performance.now() - started);
    if ((created.spec?.injected === 123) !== mutated) {
      throw new Error(`Object ${prefix}-${i} was ${mutated ? 'not ' : ''}mutated.`);
    }
  }
  return times;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(
  cp: ControlPlane, client: KubeClient, contestant: Contestant, run: number,
): Promise<Measurement> {
  const namespace = `admission-${contestant.name}-${run}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  let operator: RunningOperator | undefined;
  try {
    if (contestant.operator) {
      const args = ['--standalone', '--namespace', namespace, ...EXTRA_ARGS];
      operator = runOperator({ ...contestant.operator, args, kubeconfigPath: cp.kubeconfigPath });
      await untilAdmitting(client);
    } else {
      await untilUnadmitting(client);
    }
    await creates(client, namespace, `${contestant.name}-warmup`, WARMUP, Boolean(operator));
    const cpuBefore = operator ? cpuSeconds(operator.pid) : 0;
    const times = (await creates(client, namespace, contestant.name, N, Boolean(operator))).sort((a, b) => a - b);
    const cpuPer1k = operator ? ((cpuSeconds(operator.pid) - cpuBefore) / N) * 1000 : null;
    const [p50, p90, p99] = [percentile(times, 50), percentile(times, 90), percentile(times, 99)];
    return { contestant: contestant.name, run, p50, p90, p99, cpuPer1k };
  } finally {
    const exit = await operator?.stop({ timeout: 60_000 });
    if (exit && exit.exitCode !== 0) {
      console.error(`${contestant.label} exited with ${exit.exitCode}:\n${exit.output.slice(-3000)}`);
    }
    // A namespace per run keeps the runs apart; its objects go with the control plane.
  }
}

function report(all: readonly Contestant[], results: readonly Measurement[]): void {
  const ms = (x: number) => x.toFixed(2);
  console.log(`\nN=${N} sequential creates per run, ${REPEAT} run(s) per contestant\n`);
  console.log(tableHead(['contestant', 'run', 'p50 ms', 'p90 ms', 'p99 ms', 'operator CPU s / 1k']));
  for (const m of results) {
    const label = all.find((c) => c.name === m.contestant)!.label;
    const cpu = m.cpuPer1k === null ? '—' : m.cpuPer1k.toFixed(2);
    console.log(tableRow([label, String(m.run), ms(m.p50), ms(m.p90), ms(m.p99), cpu]));
  }
  const of = (name: string, key: 'p50' | 'p99') => {
    const runs = results.filter((m) => m.contestant === name);
    return runs.length ? median(runs.map((m) => m[key])) : undefined;
  };
  for (const key of ['p50', 'p99'] as const) {
    const none = of('none', key), ts = of('ts', key), kopf = of('kopf', key), floor = of('floor', key);
    if (none === undefined) continue;
    const added = (x: number | undefined) => (x === undefined ? undefined : x - none);
    const [tsAdded, kopfAdded] = [added(ts), added(kopf)];
    const parts = [`${key}: without webhooks ${ms(none)} ms`];
    if (tsAdded !== undefined) parts.push(`this runtime adds ${ms(tsAdded)} ms`);
    if (kopfAdded !== undefined) parts.push(`Kopf adds ${ms(kopfAdded)} ms`);
    if (floor !== undefined) parts.push(`the floor adds ${ms(floor - none)} ms`);
    if (tsAdded !== undefined && kopfAdded !== undefined && kopfAdded > 0) {
      parts.push(`ratio ${(tsAdded / kopfAdded).toFixed(2)} (aim: at most 0.50)`);
    }
    console.log(parts.join('; '));
  }
}

async function main(): Promise<void> {
  const all = await contestants();
  const results: Measurement[] = [];
  await onControlPlane(async (cp, client) => {
    for (let run = 1; run <= REPEAT; run++) {
      for (const contestant of all) {
        const m = await measure(cp, client, contestant, run);
        console.log(`${contestant.label} #${run}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms`);
        results.push(m);
      }
    }
  }, { errorBackoffs: [] });
  report(all, results);
}

await main();
