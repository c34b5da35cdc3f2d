/**
 * Soak run: this runtime serving a steady churn for hours, to show that its memory and its
 * latency stay flat (no leak, no slow drift).
 *
 *   node bench/soak/run.ts [--hours 2] [--objects 10000] [--updates 20] [--churn 50] [--fraction 0.1]
 *     [--warmup 20] [--out bench-soak] [--heap-snapshots 30,110]
 *
 * On a local control plane, `--objects` KopfExample objects are created, a `--fraction` of them
 * with a timer (every 30 s) and as many others with a daemon (operator.ts). Then, for `--hours`:
 * `--updates` objects a second get a new `spec.field` (the update handler's result names it, so
 * each update's handling latency is timed from the patch to the result, seen by a watch from
 * outside), and `--churn` objects a minute are deleted and created again. Each minute: the
 * resident memory of the operator's process tree, its event loop's delay (p99) and its V8 heap's
 * used and total sizes, its event loop's longest stall and its garbage collector's longest pause
 * (all printed by the operator), the handling latency (p50, p99) of that minute's updates.
 *
 * Written to `--out`.csv (one row a minute) and `--out`.png (top: memory; bottom: latency p99 in
 * red, event-loop delay p99 in blue; one point a minute, the scales start at 0). The judgement,
 * over the minutes after the first `--warmup`: memory flat within 5% (the mean of the last third
 * over the first third), latency p99 rising by 25% at most (the same ratio).
 *
 * `--heap-snapshots` (minutes, comma-separated) starts the operator with Node's
 * `--heapsnapshot-signal` and signals it at the start of those minutes; each snapshot is kept as
 * `--out`-minute-M.heapsnapshot, for `heapdiff.ts` to compare. Writing one stops the operator for
 * seconds and raises its resident memory for good (the writer's own memory, outside the heap), so
 * the minutes with one are marked in the CSV, and the memory's judgement is sound only with the
 * snapshots taken within the warm-up.
 */
import { readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createObject, deleteObject, patchObject, type KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { Observer, type ObjectEvent } from '../burst/observer.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions } from '../lib/options.ts';
import { plotPanels } from '../lib/png.ts';
import { treeRssMiB } from '../lib/proctree.ts';
import { markdownTable, mean } from '../lib/tables.ts';

const values = benchOptions({
  hours: 2, objects: 10_000, updates: 20, churn: 50, fraction: 0.1, warmup: 20, out: 'bench-soak',
  'heap-snapshots': '',
});
const SNAPSHOT_MINUTES = new Set(values['heap-snapshots'].split(',').filter(Boolean).map(Number));
const SNAPSHOT_DIR = dirname(resolve(values.out));
const SNAPSHOT_SIGNAL = 'SIGUSR2';
const NAMESPACE = 'soak';
const CLI = join(import.meta.dirname, '../../runtime/cli/main.ts');
const DELAY_LINE = /soak: event-loop delay p99 ([\d.]+) ms, max ([\d.]+) ms/;
const HEAP_LINE = /soak: heap used ([\d.]+) MiB, total ([\d.]+) MiB, external ([\d.]+) MiB/;
const GC_LINE = /soak: gc longest pause ([\d.]+) ms/;

interface Minute {
  minute: number;
  rssMiB: number;
  /** The V8 heap's live objects, its size with its reserve, and the memory outside it for JavaScript objects. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  loopDelayP99: number;
  /** The event loop's longest stall (a collection that gives memory back is several pauses in a row). */
  loopDelayMax: number;
  /** The garbage collector's longest single pause. */
  gcPauseMaxMs: number;
  latencyP50: number;
  latencyP99: number;
  updates: number;
  snapshot: boolean;
}

/** The objects: a fraction with a timer, as many with a daemon, the rest with handlers only. */
function soakObject(index: number): KopfExample {
  const object = exampleObject(`soak-${String(index).padStart(5, '0')}`);
  const share = index / values.objects;
  const labels: Record<string, string> = share < values.fraction ? { 'soak/timer': 'yes' }
    : share < 2 * values.fraction ? { 'soak/daemon': 'yes' } : {};
  object.metadata = { ...object.metadata, labels };
  return object;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : NaN;
}

/** Times each update from its patch to the update handler's result naming the new value. */
class Latencies {
  readonly #pending = new Map<string, { value: string; at: number }>();
  #done: number[] = [];

  sent(name: string, value: string): void {
    this.#pending.set(name, { value, at: performance.now() });
  }

  seen(event: ObjectEvent<KopfExample>): void {
    const name = event.object.metadata?.name ?? '';
    const pending = this.#pending.get(name);
    const status = event.object.status as { update_fn?: { seen?: string } } | undefined;
    if (pending && status?.update_fn?.seen === pending.value) {
      this.#done.push(performance.now() - pending.at);
      this.#pending.delete(name);
    }
  }

  /** The latencies completed since the last call, sorted, in milliseconds. */
  take(): number[] {
    const done = this.#done.sort((a, b) => a - b);
    this.#done = [];
    return done;
  }
}

/** The file Node names `Heap.<date>.<time>.<pid>.<thread>.<seq>.heapsnapshot`, once it has stopped growing. */
async function writtenSnapshot(pid: number, known: ReadonlySet<string>): Promise<string> {
  let lastSize = -1;
  for (;;) {
    await sleep(2000);
    const file = readdirSync(SNAPSHOT_DIR).find((name) => (
      name.endsWith('.heapsnapshot') && name.includes(`.${pid}.`) && !known.has(name)
    ));
    if (!file) continue;
    const size = statSync(join(SNAPSHOT_DIR, file)).size;
    if (size > 0 && size === lastSize) return file;
    lastSize = size;
  }
}

/** Signals the operator to write a heap snapshot and renames it after the minute once written. */
async function heapSnapshot(operator: RunningOperator, minute: number): Promise<void> {
  const known = new Set(readdirSync(SNAPSHOT_DIR));
  process.kill(operator.pid, SNAPSHOT_SIGNAL);
  const file = await writtenSnapshot(operator.pid, known);
  const kept = `${values.out}-minute-${minute}.heapsnapshot`;
  renameSync(join(SNAPSHOT_DIR, file), kept);
  process.stderr.write(`minute ${minute}: heap snapshot ${kept}\n`);
}

async function churn(client: KubeClient, operator: RunningOperator, latencies: Latencies): Promise<Minute[]> {
  const minutes: Minute[] = [];
  const total = Math.round(values.hours * 60);
  let delaySince = operator.lines.length;
  let counter = 0;
  const snapshots: Promise<void>[] = [];
  for (let minute = 1; minute <= total; minute++) {
    const ends = performance.now() + 60_000;
    if (SNAPSHOT_MINUTES.has(minute)) snapshots.push(heapSnapshot(operator, minute));
    const gone = Array.from({ length: values.churn }, () => Math.floor(Math.random() * values.objects));
    await pool(gone, 4, async (index) => {
      const { metadata } = soakObject(index);
      await deleteObject(client, KopfExample, { namespace: NAMESPACE, name: metadata!.name! }).catch(() => undefined);
    });
    while (performance.now() < ends) {
      const second = performance.now() + 1000;
      const picked = Array.from({ length: values.updates }, () => Math.floor(Math.random() * values.objects));
      await pool(picked, 8, async (index) => {
        const name = soakObject(index).metadata!.name!;
        const value = `v${++counter}`;
        latencies.sent(name, value);
        await patchObject(client, KopfExample, { namespace: NAMESPACE, name }, { spec: { field: value } })
          .catch(() => undefined); // a deleted one: it is about to be created again
      });
      await sleep(Math.max(0, second - performance.now()));
    }
    await pool(gone, 4, (index) => (
      createObject(client, KopfExample, soakObject(index), { namespace: NAMESPACE }).catch(() => undefined)
    ));
    const lines = operator.lines.slice(delaySince);
    const loop = lines.map((line) => DELAY_LINE.exec(line)).filter(Boolean).at(-1) ?? [];
    const heap = lines.map((line) => HEAP_LINE.exec(line)).filter(Boolean).at(-1) ?? [];
    const gc = lines.map((line) => GC_LINE.exec(line)).filter(Boolean).at(-1) ?? [];
    delaySince = operator.lines.length;
    const done = latencies.take();
    minutes.push({
      minute, rssMiB: treeRssMiB(operator.pid),
      loopDelayP99: Number(loop[1] ?? NaN), loopDelayMax: Number(loop[2] ?? NaN),
      heapUsedMiB: Number(heap[1] ?? NaN), heapTotalMiB: Number(heap[2] ?? NaN), externalMiB: Number(heap[3] ?? NaN),
      gcPauseMaxMs: Number(gc[1] ?? NaN),
      latencyP50: percentile(done, 0.5), latencyP99: percentile(done, 0.99), updates: done.length,
      snapshot: SNAPSHOT_MINUTES.has(minute),
    });
    const last = minutes.at(-1)!;
    process.stderr.write(
      `minute ${minute}/${total}: ${last.rssMiB.toFixed(1)} MiB, latency p99 ${last.latencyP99.toFixed(0)} ms, ` +
        `event loop p99 ${last.loopDelayP99} ms, max ${last.loopDelayMax} ms, gc pause max ${last.gcPauseMaxMs} ms\n`,
    );
  }
  await Promise.all(snapshots);
  return minutes;
}

/** The mean of the last third of the minutes after the warm-up over the mean of the first third. */
function drift(minutes: readonly Minute[], pick: (m: Minute) => number): number {
  const after = minutes.filter((m) => m.minute > values.warmup).map(pick).filter(Number.isFinite);
  const third = Math.max(1, Math.floor(after.length / 3));
  return mean(after.slice(-third)) / mean(after.slice(0, third));
}

function report(minutes: readonly Minute[]): void {
  const csv = ['minute,rss_mib,heap_used_mib,heap_total_mib,external_mib,event_loop_delay_p99_ms,'
    + 'event_loop_delay_max_ms,gc_pause_max_ms,latency_p50_ms,latency_p99_ms,updates,heap_snapshot'];
  for (const m of minutes) {
    csv.push([m.minute, m.rssMiB.toFixed(2), m.heapUsedMiB, m.heapTotalMiB, m.externalMiB, m.loopDelayP99,
      m.loopDelayMax, m.gcPauseMaxMs, m.latencyP50.toFixed(1), m.latencyP99.toFixed(1), m.updates,
      m.snapshot ? 'yes' : ''].join(','));
  }
  writeFileSync(`${values.out}.csv`, `${csv.join('\n')}\n`);
  writeFileSync(`${values.out}.png`, plotPanels([
    { series: [{ values: minutes.map((m) => m.rssMiB), color: [0, 0, 0] }] },
    {
      series: [
        { values: minutes.map((m) => m.latencyP99), color: [200, 0, 0] },
        { values: minutes.map((m) => m.loopDelayP99), color: [0, 0, 200] },
      ],
    },
  ]));
  const memory = drift(minutes, (m) => m.rssMiB);
  const heapUsed = drift(minutes, (m) => m.heapUsedMiB);
  const heapTotal = drift(minutes, (m) => m.heapTotalMiB);
  const latency = drift(minutes, (m) => m.latencyP99);
  const verdict = (ratio: number, limit: number) => (Math.abs(ratio - 1) <= limit ? 'flat' : 'NOT flat');
  // Latency that falls (the machine's other load easing) is no drift of the operator's: only a rise counts.
  const rising = (ratio: number, limit: number) => (ratio <= 1 + limit ? 'not rising' : 'RISING');
  console.log(`\nSoak: ${values.objects} objects, ${values.updates} updates/s, ${values.churn} re-creations/min, ` +
    `${values.hours} h; ${values.out}.csv and ${values.out}.png written.\n`);
  console.log(markdownTable(['after the first minutes', 'last third / first third', 'judgement'], [
    [`resident memory (after ${values.warmup} min)`, memory.toFixed(3), `${verdict(memory, 0.05)} (within 5%)`],
    ['of it: V8 heap used, live objects', heapUsed.toFixed(3), ''],
    ['of it: V8 heap total, with its reserve', heapTotal.toFixed(3), ''],
    [`handling latency p99 (after ${values.warmup} min)`, latency.toFixed(3), `${rising(latency, 0.25)} (25% at most)`],
  ]));
  const longest = (pick: (m: Minute) => number) => Math.max(0, ...minutes.map(pick).filter(Number.isFinite));
  console.log(`\nThe event loop's longest stall: ${longest((m) => m.loopDelayMax).toFixed(1)} ms; the garbage `
    + `collector's longest single pause: ${longest((m) => m.gcPauseMaxMs).toFixed(1)} ms.`);
}

async function main(): Promise<void> {
  const minutes = await onControlPlane(async (cp, client) => {
    await createObject(client, Namespaces, { metadata: { name: NAMESPACE } });
    const indexes = Array.from({ length: values.objects }, (_, i) => i);
    process.stderr.write(`creating ${values.objects} objects…\n`);
    await pool(indexes, 32, (i) => createObject(client, KopfExample, soakObject(i), { namespace: NAMESPACE }));
    const latencies = new Latencies();
    const observer = new Observer(client, KopfExample, NAMESPACE, (o) => Boolean(o.status?.create_fn), (event) => (
      latencies.seen(event)
    ));
    await observer.ready;
    const snapshotting = SNAPSHOT_MINUTES.size
      ? [`--heapsnapshot-signal=${SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${SNAPSHOT_DIR}`] : [];
    const operator = runOperator({
      command: [process.execPath, ...snapshotting, CLI, 'run', '--standalone', '--namespace', NAMESPACE],
      files: [join(import.meta.dirname, 'operator.ts')], kubeconfigPath: cp.kubeconfigPath,
    });
    try {
      const timeout = 600_000 + values.objects * 50;
      await observer.until(() => observer.handledAt.size >= values.objects, timeout, 'all handled');
      process.stderr.write('all handled; churning…\n');
      return await churn(client, operator, latencies);
    } finally {
      await operator.stop({ timeout: 60_000 });
      await observer.stop();
    }
  }, { maxSockets: 32 });
  report(minutes);
}

await main();
