/** The reconcile benchmark's figures: one table row per run, and the ratios to the baseline. */
import { markdownTable, mean } from '../lib/tables.ts';

export interface Measurement {
  contestant: string;
  run: number;
  n: number;
  /** First create → every child exists. */
  madeSeconds: number;
  /** First deletion of a child → every name has a new child. */
  backSeconds: number;
  /** Reconciles run while the children were restored. */
  reconciles: number;
  cpuMsPerReconcile: number;
  cpuMsPerChild: number;
  /** Resident memory when started, before the objects came. */
  idleRssMiB: number;
  peakRssMiB: number;
  exitCode: number | null;
}

export function table(results: readonly Measurement[], labels: ReadonlyMap<string, string>): string {
  const header = [
    'contestant', 'run', 'N', 'created → all children, s', 'deleted → all back, s', 'reconciles',
    'CPU ms / reconcile', 'CPU ms / child', 'idle RSS MiB', 'peak RSS MiB', 'exit',
  ];
  return markdownTable(header, results.map((r) => [
    labels.get(r.contestant) ?? r.contestant, String(r.run), String(r.n), r.madeSeconds.toFixed(2),
    r.backSeconds.toFixed(2), String(r.reconciles), r.cpuMsPerReconcile.toFixed(3), r.cpuMsPerChild.toFixed(3),
    r.idleRssMiB.toFixed(0), r.peakRssMiB.toFixed(0), String(r.exitCode),
  ]));
}

/**
 * The contestant's figures over the baseline's, each a ratio of the two averages over the runs
 * (below 1: the contestant is faster, or spends less); null unless both ran.
 */
export function ratios(
  results: readonly Measurement[], contestant: string, baseline: string,
): Record<'back' | 'cpuPerReconcile' | 'cpuPerChild' | 'peakRss' | 'growth', number> | null {
  const ours = results.filter((r) => r.contestant === contestant);
  const theirs = results.filter((r) => r.contestant === baseline);
  if (!ours.length || !theirs.length) return null;
  const ratio = (figure: (r: Measurement) => number): number => mean(ours.map(figure)) / mean(theirs.map(figure));
  return {
    back: ratio((r) => r.backSeconds),
    cpuPerReconcile: ratio((r) => r.cpuMsPerReconcile),
    cpuPerChild: ratio((r) => r.cpuMsPerChild),
    peakRss: ratio((r) => r.peakRssMiB),
    growth: ratio((r) => r.peakRssMiB - r.idleRssMiB),
  };
}

export function ratiosLine(results: readonly Measurement[], contestant: string, baseline: string): string | null {
  const r = ratios(results, contestant, baseline);
  if (!r) return null;
  return `Ratios to ${baseline} (averages over the runs): deleted → all back ${r.back.toFixed(2)}× ` +
    `(aim ≤ 1), CPU per reconcile ${r.cpuPerReconcile.toFixed(2)}×, CPU per child ${r.cpuPerChild.toFixed(2)}× ` +
    `(aim < 1), peak RSS ${r.peakRss.toFixed(2)}× (aim < 1), peak above idle ${r.growth.toFixed(2)}×.`;
}

