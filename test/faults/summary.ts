/**
 * The suite's summary: one row per test (faults injected, objects, lost, re-runs after recorded
 * completion), appended as a JSON line to the file named by KOPF_FAULTS_SUMMARY (set by
 * `scripts/test.ts`, which prints the table after the suite), and said by each test too.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export interface SummaryRow {
  test: string;
  faults: number;
  objects: number;
  lost: number;
  reruns: number;
  seconds: number;
  /** The seed of a randomised test, to replay it (KOPF_FAULTS_SEED). */
  seed?: number;
}

export const SUMMARY_ENV = 'KOPF_FAULTS_SUMMARY';

export function recordRow(row: SummaryRow): void {
  const path = process.env[SUMMARY_ENV];
  if (path) appendFileSync(path, `${JSON.stringify(row)}\n`);
}

export function describeRow(row: SummaryRow): string {
  const seed = row.seed === undefined ? '' : `, seed ${row.seed}`;
  return `${row.test}: ${row.faults} faults, ${row.objects} objects, ${row.lost} lost, `
    + `${row.reruns} re-runs after recorded completion (${row.seconds.toFixed(0)} s${seed})`;
}

/** The rows of a summary file as a table, with a total line. */
export function summaryTable(path: string): string {
  const rows = existsSync(path)
    ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as SummaryRow)
    : [];
  const total: SummaryRow = {
    test: 'total', faults: sum(rows, 'faults'), objects: sum(rows, 'objects'), lost: sum(rows, 'lost'),
    reruns: sum(rows, 'reruns'), seconds: sum(rows, 'seconds'),
  };
  const header = ['test', 'faults', 'objects', 'lost', 're-runs', 's', 'seed'];
  const cells = [...rows, total].map((r) => [
    r.test, String(r.faults), String(r.objects), String(r.lost), String(r.reruns), r.seconds.toFixed(0),
    String(r.seed ?? ''),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const cell = (v: string, i: number): string => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!));
  const line = (c: string[]): string => c.map(cell).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...cells.slice(0, -1).map(line), rule, line(cells.at(-1)!)].join('\n');
}

function sum(rows: readonly SummaryRow[], key: 'faults' | 'objects' | 'lost' | 'reruns' | 'seconds'): number {
  return rows.reduce((total, row) => total + row[key], 0);
}
