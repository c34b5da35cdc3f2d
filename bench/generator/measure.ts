/**
 * Timing of child processes: wall-clock time of whole runs, as a user waits for them.
 */
import { spawnSync } from 'node:child_process';

export interface Run {
  readonly seconds: number;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function timed(argv: readonly string[], cwd?: string): Run {
  const start = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  const seconds = (performance.now() - start) / 1000;
  if (r.error) throw r.error;
  return { seconds, status: r.status, stdout: r.stdout, stderr: r.stderr };
}
