/**
 * A process's instructions and cycles over an interval, counted by the CPU (Linux `perf stat`,
 * where it is installed and allowed). CPU seconds on a shared two-core machine swing widely from
 * run to run: the operator shares the cores (and their caches) with the apiserver and etcd, and
 * the same work takes more or fewer cycles. The count of instructions is the work itself and
 * barely moves, so it shows what a change to the operator does; the instructions per cycle show
 * what the machine did.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface HardwareCounts {
  instructions: number;
  cycles: number;
}

export interface CounterSession {
  /** Ends the counting; null where the counters could not be read. */
  stop(): Promise<HardwareCounts | null>;
}

let available: boolean | undefined;

function perfAvailable(): boolean {
  available ??= spawnSync('perf', ['--version'], { stdio: 'ignore' }).status === 0;
  return available;
}

/** Counts the process's instructions and cycles (all its threads) until `stop()`. */
export function countHardware(pid: number): CounterSession {
  if (!perfAvailable()) return { stop: async () => null };
  const perf = spawn(
    'perf',
    ['stat', '-x', ',', '-e', 'instructions,cycles', '-p', String(pid)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let report = '';
  perf.stderr.setEncoding('utf8').on('data', (text: string) => (report += text));
  const closed = new Promise<void>((resolve) => perf.once('close', () => resolve()));
  perf.once('error', () => undefined);
  return {
    async stop() {
      perf.kill('SIGINT');
      await closed;
      return parsePerfStat(report);
    },
  };
}

/** Reads `perf stat -x ,` lines (`value,unit,event,…`); null if either counter is missing. */
export function parsePerfStat(report: string): HardwareCounts | null {
  const counts = new Map<string, number>();
  for (const line of report.split('\n')) {
    const [value, , event] = line.split(',');
    if (!event || !value || !/^\d+$/.test(value)) continue;
    counts.set(event.replace(/:.*$/, ''), Number(value));
  }
  const instructions = counts.get('instructions');
  const cycles = counts.get('cycles');
  return instructions && cycles ? { instructions, cycles } : null;
}
