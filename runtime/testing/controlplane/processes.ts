/**
 * Child processes that cannot outlive the test run that started them. Each binary is started by a
 * tiny shell watchdog: the shell forks a helper that blocks reading a pipe from this process, then
 * `exec`s the binary (so the pid, signals and exit status are the binary's own). The pipe closes
 * in two cases: this process died (even by SIGKILL: the kernel closes it), or the binary exited
 * and Node, having reaped it, closed the pipe. The helper tells them apart by whether the binary
 * is still there; if it is, the helper SIGKILLs it and removes its state.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLines } from './text.ts';

const WATCHDOG = `
dir=$1; shift
exec 3<&0 </dev/null
(
  while read -r _ <&3; do :; done
  kill -0 $$ 2>/dev/null || exit 0
  kill -KILL $$ 2>/dev/null
  if [ -n "$dir" ]; then
    n=0
    while kill -0 $$ 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
    rm -rf "$dir"
  fi
) &
exec "$@" 3<&-
`;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all. */
  error?: Error;
}

export interface SupervisedOptions {
  /** A short name for messages, e.g. `etcd`. */
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr go here (appended: a restarted process continues the same log). */
  logPath: string;
  /** Removed by the watchdog when this process dies without stopping the child. */
  orphanCleanupDir?: string;
}

export class SupervisedProcess {
  readonly name: string;
  readonly logPath: string;
  readonly pid: number;
  #child: ChildProcess;
  #exit: ProcessExit | null = null;
  #exited: Promise<ProcessExit>;

  constructor(options: SupervisedOptions) {
    this.name = options.name;
    this.logPath = options.logPath;
    const log = openSync(options.logPath, 'a');
    try {
      this.#child = spawn('/bin/sh', [
        '-c',
        WATCHDOG,
        'kopf-watchdog',
        options.orphanCleanupDir ?? '',
        options.command,
        ...options.args
      ], {
        stdio: ['pipe', log, log],
      });
    } finally {
      closeSync(log);
    }
    this.pid = this.#child.pid ?? -1;
    this.#exited = new Promise<ProcessExit>((resolve) => {
      this.#child.once('error', (error) => this.#settle({ code: null, signal: null, error }, resolve));
      this.#child.once('exit', (code, signal) => this.#settle({ code, signal }, resolve));
    });
    // A running child does not keep the event loop alive (a test that forgets to stop a control
    // plane still ends, and the exit hook stops it then); awaiting `exited` does.
    this.#child.unref();
    (this.#child.stdin as { unref?: () => void } | null)?.unref?.();
    this.#child.stdin?.on('error', () => {});
  }

  #settle(exit: ProcessExit, resolve: (exit: ProcessExit) => void): void {
    if (this.#exit) return;
    this.#exit = exit;
    resolve(exit);
  }

  /** Resolves when the process has exited, for whatever reason; keeps the event loop alive till then. */
  get exited(): Promise<ProcessExit> {
    this.ref();
    return this.#exited;
  }

  /** The same, without holding the event loop: for watchers that must not keep a run alive. */
  get exitedInBackground(): Promise<ProcessExit> {
    return this.#exited;
  }

  /** From now on, the event loop stays alive while this process runs. */
  ref(): void {
    if (!this.#exit) this.#child.ref();
  }

  get running(): boolean {
    return this.#exit === null;
  }

  get exit(): ProcessExit | null {
    return this.#exit;
  }

  /** SIGTERM, then SIGKILL if it is still there after `graceMs`; resolves once it has exited. */
  async stop(graceMs = 5000, signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit> {
    if (this.#exit) return this.#exit;
    this.#child.kill(signal);
    const timer = new AbortController();
    // Awaiting `exited` holds the event loop, so this process does not end before its child has.
    const outcome = await Promise.race([this.exited, sleep(graceMs, null, { signal: timer.signal }).catch(() => null)]);
    timer.abort();
    if (outcome) return outcome;
    this.#child.kill('SIGKILL');
    return this.exited;
  }

  /** For process-exit hooks, where nothing asynchronous runs any more. */
  killNow(): void {
    if (this.#exit) return;
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** The end of its log, for error messages. */
  logTail(lines = 30): string {
    return readLogTail(this.logPath, lines);
  }

  describeExit(): string {
    const exit = this.#exit;
    if (!exit) return `${this.name} (pid ${this.pid}) is running`;
    if (exit.error) return `${this.name} could not be started: ${exit.error.message}`;
    return `${this.name} (pid ${this.pid}) exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}`;
  }
}

function readLogTail(path: string, lines: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = statSync(path).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return lastLines(buffer.toString('utf8'), lines);
  } finally {
    closeSync(fd);
  }
}
