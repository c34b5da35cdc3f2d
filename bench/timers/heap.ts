/**
 * The timers benchmark's live data per object, without an API server: the benchmark's timer and
 * daemon (operator.ts) spawned for N objects by the real spawner of a tree of the runtime, against
 * a fake API server that answers every write at once; after a few seconds of ticking, the
 * JavaScript heap in use after full collections, per object, above the figure before the objects.
 * Resident memory (run.ts) moves by several MiB with the young generation and the peak of the
 * burst; this is the part that the code's own records make, steady within about a tenth.
 *
 *   node --expose-gc bench/timers/heap.ts [--n 2000] [--seconds 3] [--interval 1] [--handlers timer,daemon]
 *     [--tree DIR]
 *
 * With a long `--interval` (3600), the timers wait between their calls while the heap is measured,
 * and no call's garbage is in flight: the figure is then what a waiting timer and daemon hold.
 * `--tree` measures another checkout of the runtime (with its node_modules), to compare a change
 * with the code before it; run each a few times, one process at a time, and take the lower figures
 * (a collection that falls in the middle of a timer call keeps that call's garbage).
 */
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '3' },
    interval: { type: 'string', default: '1' },
    handlers: { type: 'string', default: 'timer,daemon' },
    tree: { type: 'string', default: join(import.meta.dirname, '../..') },
  },
});
const N = Number(values.n);
const tree = resolve(values.tree);
const load = (path: string) => import(pathToFileURL(join(tree, path)).href);

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('Run with --expose-gc');

/** The heap in use after collections that leave no garbage behind. */
async function heapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collect!();
    await sleep(50);
  }
  return process.memoryUsage().heapUsed;
}

const modules = await Promise.all([
  load('runtime/registry/registry.ts'),
  load('runtime/daemons/spawning.ts'),
  load('runtime/config/defaults.ts'),
  load('runtime/logging/index.ts'),
  load('examples/kopfexample.ts'),
  load('test/unit/kube/fake-server.ts'),
  load('test/unit/engine/processor.ts'),
]);
const [{ OperatorRegistry }, { Spawner }, { defaultSettings }, logging, { KopfExample }, fake, engine] = modules;
const server = await fake.startServer((_req: unknown, res: unknown) => fake.sendJson(res, 200, engine.FRESH));
const client = fake.clientOf(server);
// Every line rendered and dropped, as a sink that writes would render it.
const sink = (_record: unknown, render: () => string) => render();
const logger = new logging.Logger(new logging.LogConfig({ sinks: [sink] }));
const registry = new OperatorRegistry();
const handlers = values.handlers.split(',');
const interval = Number(values.interval);
if (handlers.includes('timer')) registry.on.timer(KopfExample, function tick() {}, { interval });
type Waits = { stopped: { wait(seconds: number): Promise<boolean> } };
if (handlers.includes('daemon')) {
  registry.on.daemon(KopfExample, async function accompany({ stopped }: Waits) {
    while (!(await stopped.wait(1)));
  });
}
const settings = defaultSettings({ posting: { enabled: false } });
const proc = engine.processorOf(registry, { client, settings, logger, stopping: new AbortController().signal });
const spawner = new Spawner(registry.resourceHandlers, proc);

const before = await heapUsed();
for (let i = 0; i < N; i++) {
  const base = engine.FRESH as { metadata: object };
  const body = { ...base, metadata: { ...base.metadata, name: `kex-${i}`, uid: `u${i}` } };
  spawner.handle({ key: `u${i}`, body, memo: {}, deleting: false, ctx: { body }, changed: () => true });
}
await sleep(Number(values.seconds) * 1000);
const after = await heapUsed();
const kibPerObject = Number(((after - before) / N / 1024).toFixed(2));
console.log(JSON.stringify({ tree, n: N, tasks: spawner.size, kibPerObject }));
await spawner.stopAll();
client.close();
await server.close();
