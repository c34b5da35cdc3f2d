/**
 * One contestant of bench/metrics/run.ts, in a process of its own: the runtime of one tree
 * (`--tree DIR`) handles `objects` creations, each a parent handler with `items` sub-handlers made
 * of the object's content (docs/handlers.md's `{ id: item }`), reported to its metrics as the
 * handlers' pass reports them; then the exposition is scraped `scrapes` times. Prints one JSON line:
 * the series, the scrape's bytes, the median scrape's milliseconds, the peak resident memory.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchOptions } from '../lib/options.ts';
import { median } from '../lib/tables.ts';
import { peakRssMiB } from '../burst/procstat.ts';

const values = benchOptions({ tree: '.', objects: 10_000, items: 10, scrapes: 5 });
const load = (path: string) => import(pathToFileURL(join(values.tree, path)).href);

const { PrometheusMetrics } = await load('runtime/metrics/prometheus.ts');
const { runPass } = await load('runtime/handling/running.ts');
const { allAtOnce } = await load('runtime/handling/lifecycles.ts');
const { OperatorRegistry, subhandlerOf } = await load('runtime/registry/registry.ts');
const { Timestamp } = await load('runtime/progress/index.ts');
const { LogConfig, Logger } = await load('runtime/logging/index.ts');

const logger = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [() => undefined] }));
const registry = new OperatorRegistry();
registry.on.create('kopfexamples', async function create_fn() {});
const parent = registry.resourceHandlers[0];
const metrics = new PrometheusMetrics();
const report = { metrics, resource: 'kopfexamples.v1.kopf.dev', kind: 'change' };

for (let object = 0; object < values.objects; object++) {
  const invoke = async (handler: unknown, _attempt: unknown, children: { registered: unknown[] }) => {
    if (handler !== parent) return;
    for (let i = 0; i < values.items; i++) {
      children.registered.push(subhandlerOf(parent, async () => {}, { id: `obj-${object}-item-${i}` }));
    }
  };
  await runPass([parent], {
    reason: 'create', states: new Map(), lifecycle: allAtOnce, defaultBackoff: 60, logger, now: Timestamp.now(),
    results: new Map(), report, invoke,
  });
}

const times: number[] = [];
let text = '';
for (let i = 0; i < values.scrapes; i++) {
  const started = performance.now();
  text = (await metrics.exposition()).text;
  times.push(performance.now() - started);
}
const series = text.split('\n').filter((line) => line.startsWith('kopf_handler_runs_total{')).length;
metrics.close();
const result = { series, bytes: Buffer.byteLength(text), ms: median(times), peakMiB: peakRssMiB(process.pid) };
process.stdout.write(`${JSON.stringify(result)}\n`);
