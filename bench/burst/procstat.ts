/**
 * A process's own CPU time and peak memory, from /proc (Linux): what an operator costs,
 * independent of how busy the shared machine is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** CPU seconds the process has used so far (all its threads), in user space and in the kernel. */
export function cpuTimes(pid: number): { user: number; system: number } {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return cpuTimesOf(readFileSync(`/proc/${pid}/stat`, 'utf8'), ticksPerSecond);
}

/** User and system seconds from the text of `/proc/<pid>/stat` (fields 14 and 15, in clock ticks). */
export function cpuTimesOf(stat: string, ticksPerSecond: number): { user: number; system: number } {
  // The command name (field 2) may contain spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
}

/** User + system CPU seconds the process has used so far (all its threads). */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** Peak resident memory (VmHWM) in MiB. */
export function peakRssMiB(pid: number): number {
  return memoryMiB(pid).peak;
}

/** Resident memory now (VmRSS) in MiB. */
export function rssMiB(pid: number): number {
  return memoryMiB(pid).rss;
}

/**
 * Resident memory now (VmRSS), its anonymous part (heaps, stacks) and its file-backed part (the
 * binary's and libraries' pages, shared with other processes of the same binary), and the peak
 * (VmHWM), in MiB.
 */
export function memoryMiB(pid: number): { rss: number; anon: number; file: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string): number => {
    const kB = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return Number(kB ?? NaN) / 1024;
  };
  return { rss: mib('VmRSS'), anon: mib('RssAnon'), file: mib('RssFile'), peak: mib('VmHWM') };
}
