/**
 * The resident memory of a process and all its descendants, sampled from /proc (Linux): what an
 * operator costs at start, when it may run helper processes beside itself for a moment.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { memoryMiB } from '../burst/procstat.ts';

/** The process and its descendants, by /proc's children lists (processes that end meanwhile are skipped). */
export function processTree(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    const parent = found[i]!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim();
        if (children) found.push(...children.split(' ').map(Number));
      } catch { /* the task has ended */ }
    }
  }
  return found;
}

/** The resident memory of the tree now (the sum of its processes' VmRSS), in MiB. */
export function treeRssMiB(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      const { rss } = memoryMiB(member);
      if (Number.isFinite(rss)) total += rss; // a process that has ended but is not yet reaped has none
    } catch { /* the process has ended */ }
  }
  return total;
}

/**
 * Samples a process tree's resident memory every `intervalMs` until stopped: the highest sum seen,
 * and the root's own peak (VmHWM, exact: the kernel keeps it), so that a peak of the root between
 * two samples is not missed.
 */
export class TreeSampler {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #peak = 0;

  constructor(pid: number, intervalMs = 5) {
    this.#pid = pid;
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Takes one sample now and returns the tree's resident memory. */
  sample(): number {
    const now = treeRssMiB(this.#pid);
    this.#peak = Math.max(this.#peak, now);
    return now;
  }

  /** The highest memory of the tree so far, in MiB. */
  get peakMiB(): number {
    let root = 0;
    try {
      root = memoryMiB(this.#pid).peak;
    } catch { /* the process has ended: the samples hold its figures */ }
    return Math.max(this.#peak, root);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
