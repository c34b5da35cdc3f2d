/**
 * Scale benchmark: N KopfExample objects (labels, annotations and a small spec, as real objects
 * have) created before the operator starts, as when an operator is installed onto a cluster that
 * holds them already or comes back after an outage; then a restart with nothing changed, as every
 * rolling upgrade causes.
 *
 *   node bench/scale/run.ts [--n 100000] [--contestants ts,streamed,built,floor,ctrl,kopf] [--through storage]
 *     [--settle 10]
 *   node bench/scale/run.ts --phases restart [--n 100000]   # the restart alone, objects handled already
 *   node bench/scale/run.ts --report run-1.err,run-2.err     # the tables of earlier runs' measurements
 *
 * The objects are put into etcd directly (`--through storage`, bench/scale/storage.ts: copies of
 * one created through the API, managedFields and all), since creating 100,000 through the API server
 * takes most of an hour on a small machine; `--through api` creates each through the API server,
 * `--concurrency` at a time.
 *
 * `--phases restart` measures the restart alone, in minutes where a cold start of 100,000 objects takes
 * hours: the contestant handles one object, and every other is put into etcd as a copy of it as
 * stored (its finalizer, annotations and status), so that nothing is left to do for any of them.
 *
 * `--n` may list several counts (`--n 2000,4000`): each contestant runs at each, and the settled
 * memory per object is worked out from the first and the last (the difference of the settled
 * memory over the difference of the counts, which leaves out what the process holds at no objects).
 *
 * Contestants, each on a fresh local control plane:
 *   - `ts`: this runtime with bench/burst's operator (a creation handler with a small result, a
 *     deletion handler: Kopf's finalizer, result and last-handled annotation on every object);
 *   - `streamed`: the same with its listings streamed as a watch's initial events
 *     (`settings.watching.streamingLists` on) rather than read in pages;
 *   - `built`: the same as the published package runs it (compiled JavaScript, bench/burst/built.ts),
 *     without Node's TypeScript stripper: what a deployment's memory is;
 *   - `floor`: no operator but the least a Node process does for the same protocol (bench/burst/floor.ts:
 *     this runtime's API layer and queue, `kopf run`'s heap settings): what Node, TLS and JSON cost
 *     for the same listing and writes, the floor under the operator's start-up peak and settled memory;
 *   - `ctrl`: controller-runtime v0.24.1 doing the same protocol (bench/reconcile/controller-runtime/
 *     kopfprotocol), built from the Go module proxy into kopf's cache; skipped without Go;
 *   - `kopf`: Python Kopf 1.44 with the same handlers, at a tenth of N (it is that much slower).
 *
 * Per contestant and N:
 *   - cold start: seconds from the operator's start until a watch from outside has seen every
 *     object carry the handler's result, the finalizer and the annotation; the operator's CPU per
 *     object (/proc utime+stime); writes per object (PATCH/PUT on kopfexamples, from the API
 *     server's apiserver_request_total); the peak resident memory of the operator's process tree
 *     (sampled, with the kernel's own peak of the operator, so that a helper process's share
 *     counts) and the settled one (`--settle` seconds after the last object was handled);
 *   - restart with nothing changed: the operator stopped and started again; seconds until idle
 *     (until a second in which it used less than IDLE_CPU of a CPU), its CPU until then, its writes
 *     (none is right), peak and settled memory.
 * The machine may be shared: compare the contestants within one run, by their ratios.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createObject, getObject, type KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { DIFF_BASE, FINALIZER } from '../../test/e2e/rules.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { delta, requestCounts } from '../../test/e2e/metrics.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { seedCopies, seedObjects, type StorageTarget } from './storage.ts';
import { Observer } from '../burst/observer.ts';
import { buildOperator } from '../burst/built.ts';
import { cpuSeconds } from '../burst/procstat.ts';
import { buildControllerRuntime, KOPF_PROTOCOL } from '../reconcile/gobuild.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions, chosen } from '../lib/options.ts';
import { TreeSampler, treeRssMiB } from '../lib/proctree.ts';
import { measurementsIn, report, type Measurement, type Phase } from './report.ts';

const values = benchOptions({
  n: '100000', contestants: 'ts,ctrl,kopf', phases: 'cold,restart', through: 'storage', concurrency: 64, settle: 10,
  report: undefined,
});
const PHASES = new Set(values.phases.split(','));
if (!PHASES.has('restart') || [...PHASES].some((each) => !['cold', 'restart'].includes(each)))
  throw new Error(`--phases takes 'cold,restart' or 'restart', not '${values.phases}'`);
const COLD = PHASES.has('cold');
if (!COLD && values.through !== 'storage') throw new Error('--phases restart takes --through storage');
if (!['storage', 'api'].includes(values.through))
  throw new Error(`--through takes 'storage' or 'api', not '${values.through}'`);
const COUNTS = values.n.split(',').map((text) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--n takes counts of objects, not '${text}'`);
  return n;
});
const CONCURRENCY = values.concurrency;
const SETTLE = values.settle;
/** CPU seconds per second under which an operator counts as idle. */
const IDLE_CPU = 0.02;
const NAMESPACE = 'scale';
const CLI = join(import.meta.dirname, '../../runtime/cli/main.ts');

interface Contestant {
  name: string;
  label: string;
  command: string[];
  files: string[];
  /** The share of N it runs at. */
  share: number;
}

/** An object as a user's would be: a few labels and annotations beside bench/burst's spec. */
function scaleObject(name: string, index: number): KopfExample {
  const object = exampleObject(name);
  object.metadata = {
    name,
    namespace: NAMESPACE,
    labels: { app: 'scale-bench', shard: `shard-${index % 16}`, tier: index % 2 ? 'backend' : 'frontend' },
    annotations: { 'example.com/owner': `team-${index % 8}`, 'example.com/note': `object ${index} of the scale run` },
  };
  return object;
}

function isHandled(object: KopfExample): boolean {
  return Boolean(object.status?.create_fn) && Boolean(object.metadata?.finalizers?.includes(FINALIZER)) && Boolean(
    object.metadata?.annotations?.[DIFF_BASE]
  );
}

async function contestants(): Promise<Contestant[]> {
  const burst = join(import.meta.dirname, '../burst');
  const all: Record<string, () => Promise<Contestant | undefined>> = {
    ts: async () => ({
      name: 'ts', label: `this runtime (Node ${process.versions.node})`, share: 1,
      command: [process.execPath, CLI, 'run', '--standalone', '--namespace', NAMESPACE],
      files: [join(burst, 'operator.ts')],
    }),
    streamed: async () => ({
      name: 'streamed', label: `this runtime, listings streamed (Node ${process.versions.node})`, share: 1,
      command: [process.execPath, CLI, 'run', '--standalone', '--namespace', NAMESPACE],
      files: [join(import.meta.dirname, 'operator-streamed.ts')],
    }),
    built: async () => {
      const built = buildOperator();
      process.once('exit', built.remove);
      return {
        name: 'built', label: `this runtime, built (Node ${process.versions.node})`, share: 1,
        command: [process.execPath, built.cli, 'run', '--standalone', '--namespace', NAMESPACE], files: [built.file],
      };
    },
    floor: async () => ({
      name: 'floor', label: `floor: API layer and queue only (Node ${process.versions.node})`, share: 1,
      command: [process.execPath, join(burst, 'floor.ts'), '--namespace', NAMESPACE], files: [],
    }),
    ctrl: async () => {
      const built = await buildControllerRuntime(process.env, KOPF_PROTOCOL);
      if ('skipped' in built) {
        process.stderr.write(`controller-runtime skipped: ${built.skipped}\n`);
        return undefined;
      }
      return {
        name: 'ctrl', label: 'controller-runtime v0.24.1, 1 worker', share: 1,
        command: [built.binary, '--namespace', NAMESPACE], files: [],
      };
    },
    kopf: async () => ({
      name: 'kopf', label: 'Python Kopf 1.44', share: 0.1,
      command: [...await kopfRunCommand(), '--standalone', '--namespace', NAMESPACE],
      files: [join(burst, 'operator_kopf.py')],
    }),
  };
  const made = await Promise.all(chosen(values.contestants, all).map((make) => make()));
  return made.filter((contestant) => contestant !== undefined);
}

/** The condition, unless the operator exits first (then its last lines explain why). */
function guarded<T>(operator: RunningOperator, wait: Promise<T>): Promise<T> {
  const died = operator.exited.then((exit) => {
    throw new Error(
      `The operator exited (code ${exit.exitCode}, signal ${exit.signal}):\n${operator.lines.slice(-30).join('\n')}`
    );
  });
  return Promise.race([wait, died]);
}

/** Resolves with performance.now() at the start of the first second in which the process used less than IDLE_CPU. */
async function idleSince(pid: number): Promise<number> {
  let before = cpuSeconds(pid);
  let since = performance.now();
  for (;;) {
    await sleep(1000);
    const now = cpuSeconds(pid);
    if (now - before < IDLE_CPU) return since;
    before = now;
    since = performance.now();
  }
}

/** Runs the operator through one phase: `until` says when its work is done. */
async function phase(
  cp: ControlPlane, contestant: Contestant, until: (operator: RunningOperator) => Promise<number>,
): Promise<Phase> {
  const requestsBefore = await requestCounts(cp.credentials, 'kopfexamples');
  const start = performance.now();
  const { command, files } = contestant;
  const operator = runOperator({ command, files, kubeconfigPath: cp.kubeconfigPath });
  const sampler = new TreeSampler(operator.pid, 20);
  try {
    const done = await guarded(operator, until(operator));
    const cpu = cpuSeconds(operator.pid);
    const writes = delta(requestsBefore, await requestCounts(cp.credentials, 'kopfexamples'), ['PATCH', 'PUT']);
    await sleep(SETTLE * 1000);
    const settledMiB = treeRssMiB(operator.pid);
    return { seconds: (done - start) / 1000, cpu, writes: writes.total, peakMiB: sampler.peakMiB, settledMiB };
  } finally {
    sampler.stop();
    await operator.stop({ timeout: 60_000 });
  }
}

function storageOf(cp: ControlPlane): StorageTarget {
  return { etcdUrl: cp.etcdUrl, prefix: `/registry/${KopfExample.group}/${KopfExample.plural}/` };
}

function reporting(total: number): (done: number) => void {
  let reported = 0;
  return (done) => {
    if (done - reported < 10_000 && done < total) return;
    reported = done;
    process.stderr.write(`  ${done} in etcd\n`);
  };
}

async function createObjects(cp: ControlPlane, client: KubeClient, objects: KopfExample[]): Promise<void> {
  if (values.through === 'api') {
    await pool(objects, CONCURRENCY, (object) => createObject(client, KopfExample, object, { namespace: NAMESPACE }));
    return;
  }
  await seedObjects(client, KopfExample, storageOf(cp), objects, reporting(objects.length));
}

/**
 * The objects as the contestant leaves them once handled, without a cold start of them all: the
 * contestant handles the first alone, and every other is a copy of it as stored (its finalizer,
 * annotations and status: nothing left to do for any of them).
 */
async function createHandled(
  cp: ControlPlane, client: KubeClient, contestant: Contestant, observer: Observer<KopfExample>, names: string[],
): Promise<void> {
  const [first, ...rest] = names as [string, ...string[]];
  await createObject(client, KopfExample, scaleObject(first, 0), { namespace: NAMESPACE });
  await phase(cp, contestant, () => observer.until(() => observer.handledAt.has(first), 300_000, 'the first handled'));
  const stored = await getObject(client, KopfExample, { namespace: NAMESPACE, name: first });
  const copies = rest.map((name): KopfExample => ({ metadata: { name, namespace: NAMESPACE } }));
  await seedCopies(client, KopfExample, storageOf(cp), stored, copies, reporting(names.length));
  await observer.until(() => observer.handledAt.size >= names.length, 600_000, 'all copies seen handled');
}

async function measure(contestant: Contestant, total: number): Promise<Measurement> {
  const n = Math.max(1, Math.round(total * contestant.share));
  return onControlPlane(async (cp, client) => {
    await createObject(client, Namespaces, { metadata: { name: NAMESPACE } });
    const names = Array.from({ length: n }, (_, i) => `kex-${String(i).padStart(6, '0')}`);
    const observer = new Observer(client, KopfExample, NAMESPACE, isHandled);
    await observer.ready;
    const timeout = 600_000 + n * 50;
    try {
      let cold: Phase | undefined;
      if (COLD) {
        const where = values.through === 'api' ? 'through the API' : 'in etcd';
        process.stderr.write(`${contestant.label}: creating ${n} objects ${where}…\n`);
        await createObjects(cp, client, names.map(scaleObject));
        process.stderr.write(`${contestant.label}: cold start…\n`);
        cold = await phase(cp, contestant, () => (
          observer.until(() => observer.handledAt.size >= n, timeout, 'all handled')
        ));
        process.stderr.write(`  handled in ${cold.seconds.toFixed(1)} s; restart…\n`);
      } else {
        process.stderr.write(`${contestant.label}: ${n} objects in etcd, handled by the contestant already…\n`);
        await createHandled(cp, client, contestant, observer, names);
        process.stderr.write(`${contestant.label}: restart…\n`);
      }
      const restart = await phase(cp, contestant, (operator) => idleSince(operator.pid));
      process.stderr.write(`  idle after ${restart.seconds.toFixed(1)} s\n`);
      return { contestant: contestant.name, label: contestant.label, n, cold, restart };
    } finally {
      await observer.stop();
    }
  }, { maxSockets: CONCURRENCY });
}

async function main(): Promise<void> {
  if (values.report) {
    report(measurementsIn(values.report), SETTLE);
    return;
  }
  const entrants = await contestants();
  const results: Measurement[] = [];
  for (const n of COUNTS) {
    for (const contestant of entrants) {
      const measured = await measure(contestant, n);
      results.push(measured);
      // Each measurement as soon as it is made: a long run stopped early keeps what it measured.
      process.stderr.write(`${JSON.stringify(measured)}\n`);
    }
  }
  report(results, SETTLE);
}

await main();
