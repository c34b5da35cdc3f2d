/**
 * Metrics benchmark: what a scrape costs an operator whose objects make sub-handlers of their
 * content, this tree beside another (`--before DIR`, a checkout with its node_modules), each in a
 * process of its own (bench/metrics/scrape.ts). No control plane: the handlers' pass reports to
 * the metrics as in an operator, and the exposition is built as the endpoint builds it.
 *
 *   node bench/metrics/run.ts [--objects 10000] [--items 10] [--scrapes 5] [--before DIR]
 *
 * Per tree: the `kopf_handler_runs_total` series, the scrape's size, the median scrape's time (the
 * event loop is busy all of it) and the process's peak resident memory; the ratios are this
 * tree's to the other's.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { benchOptions } from '../lib/options.ts';
import { fixed, markdownTable } from '../lib/tables.ts';

const values = benchOptions({ objects: 10_000, items: 10, scrapes: 5, before: undefined });
const root = join(import.meta.dirname, '..', '..');

interface Result { series: number; bytes: number; ms: number; peakMiB: number }

function contestant(tree: string): Result {
  const args = [
    join(import.meta.dirname, 'scrape.ts'), '--tree', tree, '--objects', String(values.objects),
    '--items', String(values.items), '--scrapes', String(values.scrapes),
  ];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 })) as Result;
}

const ours = contestant(root);
const before = values.before === undefined ? undefined : contestant(values.before);
const ratio = (a: number, b: number | undefined) => b === undefined ? '' : ` (${fixed(a / b, 3)}×)`;
const row = (name: string, r: Result, base?: Result) => [
  name, `${r.series}${ratio(r.series, base?.series)}`, `${fixed(r.bytes / 1024, 1)}${ratio(r.bytes, base?.bytes)}`,
  `${fixed(r.ms, 1)}${ratio(r.ms, base?.ms)}`, `${fixed(r.peakMiB, 0)}${ratio(r.peakMiB, base?.peakMiB)}`,
];
const rows = before ? [row('before', before), row('this tree', ours, before)] : [row('this tree', ours)];
process.stdout.write(`${values.objects} objects × ${values.items} sub-handlers, ${values.scrapes} scrapes\n\n`);
const header = ['tree', 'series', 'scrape KiB', 'scrape ms (median)', 'peak RSS MiB'];
process.stdout.write(`${markdownTable(header, rows)}\n`);
