/**
 * The scale benchmark's measurements and their tables (bench/scale/run.ts): the figures of each
 * contestant at each N, this runtime's ratios to the others, the settled memory per object from
 * two counts; read from a run's own results or from earlier runs' stderr (`--report`).
 */
import { readFileSync } from 'node:fs';
import { fixed, markdownTable } from '../lib/tables.ts';

export interface Phase {
  seconds: number;
  cpu: number;
  writes: number;
  peakMiB: number;
  settledMiB: number;
}

export interface Measurement {
  contestant: string;
  label: string;
  n: number;
  /** Absent where the objects were put in place handled already (`--phases restart`). */
  cold?: Phase;
  restart: Phase;
}

/** A cell of a figure that a run may lack (no cold start with `--phases restart`). */
function cell(value: number | undefined, digits: number): string {
  return value === undefined ? '—' : value.toFixed(digits);
}

function table(results: readonly Measurement[]): string {
  const header = [
    'contestant', 'N', 'cold start, s', 'CPU ms / object', 'writes / object', 'peak MiB', 'settled MiB',
    'peak over settled, MiB', 'restart until idle, s', 'restart CPU, s', 'restart writes', 'restart peak MiB',
    'restart settled MiB', 'restart peak over settled, MiB',
  ];
  return markdownTable(header, results.map(({ label, n, cold, restart }) => [
    label, String(n), cell(cold?.seconds, 1), cell(cold && cold.cpu / n * 1000, 3), cell(cold && cold.writes / n, 2),
    cell(cold?.peakMiB, 0), cell(cold?.settledMiB, 0), cell(cold && cold.peakMiB - cold.settledMiB, 0),
    restart.seconds.toFixed(1), restart.cpu.toFixed(2), String(restart.writes), restart.peakMiB.toFixed(0),
    restart.settledMiB.toFixed(0), (restart.peakMiB - restart.settledMiB).toFixed(0),
  ]));
}

/** Each contestant's figures over this runtime's, at the same N (and Kopf's per object, at its tenth). */
function ratios(results: readonly Measurement[]): string | null {
  const ours = (n: number) => results.find((m) => m.contestant === 'ts' && m.n === n);
  const rows: string[][] = [];
  for (const other of results.filter((m) => m.contestant !== 'ts' && m.contestant !== 'built')) {
    const base = ours(other.n) ?? ours(Math.round(other.n / 0.1));
    if (!base) continue;
    const perObject = base.n !== other.n;
    const figure = (pick: (m: Measurement) => number | undefined, perN = true) => {
      const [mine, theirs] = [pick(base), pick(other)];
      if (mine === undefined || theirs === undefined) return '—';
      return perN && perObject ? fixed((mine / base.n) / (theirs / other.n), 2) : fixed(mine / theirs, 2);
    };
    rows.push([
      `this runtime / ${other.label}${perObject ? ' (per object)' : ''}`, String(base.n),
      figure((m) => m.cold?.seconds), figure((m) => m.cold?.cpu), figure((m) => m.cold?.peakMiB, false),
      figure((m) => m.cold?.settledMiB, false), figure((m) => m.restart.seconds), figure((m) => m.restart.cpu),
      figure((m) => m.restart.settledMiB, false),
    ]);
  }
  if (!rows.length) return null;
  return markdownTable([
    'ratio', 'N', 'cold start', 'CPU', 'peak memory', 'settled memory', 'restart until idle', 'restart CPU',
    'restart settled memory',
  ], rows);
}

/** Settled memory per object from the first and the last N, per contestant. */
function perObject(results: readonly Measurement[]): string | null {
  const rows: string[][] = [];
  for (const name of new Set(results.map((m) => m.contestant))) {
    const own = results.filter((m) => m.contestant === name);
    const [first, last] = [own[0]!, own.at(-1)!];
    if (first.n === last.n) continue;
    const kib = (pick: (m: Measurement) => number | undefined) => {
      const [from, to] = [pick(first), pick(last)];
      return from === undefined || to === undefined ? '—' : ((to - from) * 1024 / (last.n - first.n)).toFixed(2);
    };
    rows.push([
      first.label, `${first.n} → ${last.n}`, kib((m) => m.cold?.settledMiB), kib((m) => m.restart.settledMiB),
    ]);
  }
  if (!rows.length) return null;
  return markdownTable(['contestant', 'N', 'KiB / object, cold start', 'KiB / object, restart'], rows);
}

/** The tables of the measurements, to stdout: the figures, the ratios, the memory per object. */
export function report(results: readonly Measurement[], settle: number): void {
  console.log(`\nScale: KopfExample objects created before the operator starts; ${settle} s to settle.\n`);
  console.log(table(results));
  for (const summary of [ratios(results), perObject(results)]) {
    if (summary) console.log(`\n${summary}`);
  }
}

/** Labels for the measurements of runs that did not write them. */
const EARLIER_LABELS: Record<string, string> = {
  ts: 'this runtime', streamed: 'this runtime, listings streamed', built: 'this runtime, built',
  ctrl: 'controller-runtime v0.24.1, 1 worker', kopf: 'Python Kopf 1.44',
};

/**
 * The measurements that earlier runs wrote to stderr, one JSON object a line among their progress
 * lines: runs split by contestant or stopped early are reported as one.
 */
export function measurementsIn(files: string): Measurement[] {
  const results: Measurement[] = [];
  for (const file of files.split(',')) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as Partial<Measurement>;
      if (!record.contestant || !record.n || !record.restart) continue;
      const label = record.label ?? EARLIER_LABELS[record.contestant] ?? record.contestant;
      results.push({ ...record, label } as Measurement);
    }
  }
  if (!results.length) throw new Error(`--report found no measurements in ${files}`);
  return results.sort((a, b) => a.n - b.n);
}
