/**
 * Runs an operator as a child process for tests (Kopf's KopfRunner, out of process).
 *
 * Out of process, because an operator owns its process: signals, exit codes, the global
 * registry of handlers loaded from files. The same runner drives Python Kopf
 * (`command: [python, '-m', 'kopf', 'run']`), so one test can hold both to the same rules.
 *
 * Tests wait for log lines (`waitFor`) and for the objects' states (`waitForObject`: a timer's or a
 * daemon's writes, seen through a watch), never for time. The child dies with the test process:
 * on Linux through the parent-death signal (`setpriv --pdeathsig`, kept across `exec`, so the
 * child's pid is the operator's own and /proc figures are its own), elsewhere on the parent's exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../kube/index.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { onPath } from './executables.ts';
import { waitForObject } from './waiting.ts';
import { CLOCK_VARIABLE, followedBy, type VirtualClock } from './virtual-clock.ts';
import { fileURLToPath } from 'node:url';

export interface OperatorRunOptions {
  /** Operator files to load (appended after the arguments). */
  files?: readonly string[];
  /** Arguments of `run`, e.g. `['--standalone', '-n', 'default', '--verbose']`. */
  args?: readonly string[];
  /** Passed as `KUBECONFIG`. */
  kubeconfigPath?: string;
  /** Added to the inherited environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The command up to and including `run`; by default this runtime's CLI on this Node. */
  command?: readonly string[];
  cwd?: string;
  /** Mirror the output to stderr as it comes (also: env `KOPF_TEST_ECHO=1`). */
  echo?: boolean;
  /**
   * Run the operator on a virtual clock of its own, started at this clock's time and moved with
   * it: `await clock.advance(60)` advances both (this runtime's CLI only).
   */
  clock?: VirtualClock;
}

export interface OperatorExit {
  /** `null` when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

export interface WaitOptions {
  /** Milliseconds; 30 s by default. */
  timeout?: number;
  /** Resolve on the n-th matching line (1 by default), counting from `since`. */
  count?: number;
  /** Only lines from this index on (see `lines.length`); 0 by default. */
  since?: number;
}

export interface RunningOperator {
  readonly pid: number;
  /** stdout and stderr, line by line, in the order they arrived. */
  readonly lines: readonly string[];
  /** All output so far, as one text. */
  readonly output: string;
  /** Settles when the process exits, whatever the reason. */
  readonly exited: Promise<OperatorExit>;
  /**
   * Resolves with the first (or `count`-th) line matching the pattern; rejects on timeout or when
   * the process exits first, with the pattern and the output's last lines in the message.
   */
  waitFor(pattern: RegExp | string, options?: WaitOptions): Promise<string>;
  /**
   * Resolves with the object once `predicate` holds for it (`null`: absent), watching it with the
   * operator's own credentials (`kubeconfigPath`): e.g. until a timer has written its result into
   * the status. Rejects after `timeout` ms (30 s), or when the process exits first.
   */
  waitForObject<T extends KubeObject>(
    resource: ResourceDescriptor<T, FieldMap>,
    ref: { namespace?: string | null; name: string },
    predicate: (object: T | null) => boolean,
    options?: { timeout?: number },
  ): Promise<T | null>;
  /**
   * SIGTERM (or `signal`), then SIGKILL after `timeout` ms (10 s); resolves when it has exited. Its
   * own deadline: if the process has not ended `timeout` ms after the SIGKILL either, it rejects
   * saying so; if it has ended but a process it started still holds its output open, it resolves
   * with the output so far.
   */
  stop(options?: { signal?: NodeJS.Signals; timeout?: number }): Promise<OperatorExit>;
  [Symbol.asyncDispose](): Promise<void>;
}

const CLI = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const TAIL = 40;

/** Starts an operator process. It is running, not necessarily ready: wait for a line that says so. */
export function runOperator(options: OperatorRunOptions = {}): RunningOperator {
  const command = [
    ...(options.command ?? [process.execPath, CLI, 'run']),
    ...(options.args ?? []),
    ...(options.files ?? [])
  ];
  const env: Record<string, string | undefined> = { ...process.env, PYTHONUNBUFFERED: '1' };
  if (options.kubeconfigPath) env.KUBECONFIG = options.kubeconfigPath;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const { clock } = options;
  if (clock) env[CLOCK_VARIABLE] = String(clock.now());
  const guard = deathSignalGuard();
  const [file, ...argv] = guard ? [guard, '--pdeathsig', 'SIGKILL', '--', ...command] : command;
  const stdio = clock ? ['ignore', 'pipe', 'pipe', 'ipc'] as const : ['ignore', 'pipe', 'pipe'] as const;
  const child = spawn(file!, argv, { cwd: options.cwd, env, stdio: [...stdio] });
  const running = new OperatorProcess(
    child,
    command,
    options.echo ?? process.env.KOPF_TEST_ECHO === '1',
    options.kubeconfigPath,
  );
  if (clock) {
    const unfollow = clock.follow(followedBy(child, running.exited));
    void running.exited.then(unfollow);
  }
  return running;
}

class OperatorProcess implements RunningOperator {
  readonly lines: string[] = [];
  readonly exited: Promise<OperatorExit>;
  private readonly child: ChildProcess;
  private readonly command: readonly string[];
  private readonly echo: boolean;
  private readonly waiters = new Set<() => void>();
  private exit: OperatorExit | null = null;
  /** How the process ended (its 'exit'), which may come long before its output ends ('close'). */
  private ended: { exitCode: number | null; signal: NodeJS.Signals | null } | null = null;
  private finish!: (exitCode: number | null, signal: NodeJS.Signals | null) => void;
  private readonly killOnExit = (): void => { this.child.kill('SIGKILL'); };
  private readonly kubeconfigPath: string | undefined;
  /** The client of `waitForObject`, made on first use and closed when the process exits. */
  private client: KubeClient | undefined;

  constructor(child: ChildProcess, command: readonly string[], echo: boolean, kubeconfigPath?: string) {
    this.child = child;
    this.command = command;
    this.echo = echo;
    this.kubeconfigPath = kubeconfigPath;
    const partial = { stdout: '', stderr: '' };
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name];
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const parts = (partial[name] + chunk).split('\n');
        partial[name] = parts.pop() ?? '';
        this.append(parts);
      });
    }
    process.once('exit', this.killOnExit);
    child.once('exit', (exitCode, signal) => { this.ended = { exitCode, signal }; });
    this.exited = new Promise((resolve) => {
      const finish = this.finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exit) return;
        process.off('exit', this.killOnExit);
        this.append([partial.stdout, partial.stderr].filter(Boolean));
        this.exit = { exitCode, signal, output: this.output };
        this.client?.close();
        this.notify();
        resolve(this.exit);
      };
      // 'close' comes after the output streams have ended, so no line is lost.
      child.once('close', finish);
      child.once('error', (error) => {
        this.append([`runOperator: cannot start ${this.command.join(' ')}: ${error.message}`]);
        finish(null, null);
      });
    });
  }

  get pid(): number { return this.child.pid ?? -1; }
  get output(): string { return this.lines.join('\n'); }

  waitFor(pattern: RegExp | string, options: WaitOptions = {}): Promise<string> {
    const { timeout = 30_000, count = 1, since = 0 } = options;
    const matches = (line: string): boolean => typeof pattern === 'string' ? line.includes(pattern) : pattern.test(
      line
    );
    return new Promise((resolve, reject) => {
      const check = (): void => {
        let seen = 0;
        for (let i = since; i < this.lines.length; i++) {
          if (matches(this.lines[i]!) && ++seen >= count) return done(() => resolve(this.lines[i]!));
        }
        if (this.exit)
          done(
            () => reject(
              this.failure(
                `exited (code ${this.exit!.exitCode}, signal ${this.exit!.signal}) before`,
                lineWanted(pattern, count),
              )
            )
          );
      };
      const timer = setTimeout(
        () => done(() => reject(this.failure(`did not print within ${timeout} ms`, lineWanted(pattern, count)))),
        timeout,
      );
      const done = (settle: () => void): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  async waitForObject<T extends KubeObject>(
    resource: ResourceDescriptor<T, FieldMap>,
    ref: { namespace?: string | null; name: string },
    predicate: (object: T | null) => boolean,
    options: { timeout?: number } = {},
  ): Promise<T | null> {
    if (!this.kubeconfigPath) throw new Error('runOperator: waitForObject() needs the `kubeconfigPath` option.');
    if (!this.client) {
      const kc = new KubeConfig();
      kc.loadFromFile(this.kubeconfigPath);
      this.client = KubeClient.fromKubeConfig(kc);
    }
    const namespace = resource.scope === 'Namespaced' ? ref.namespace ?? 'default' : null;
    const exited = new AbortController();
    void this.exited.then(
      (exit) => exited.abort(
        this.failure(
          `exited (code ${exit.exitCode}, signal ${exit.signal}) before`,
          `the expected state of ${resource.kind} ${ref.name}`,
        )
      )
    );
    return waitForObject(
      this.client,
      resource,
      { namespace, name: ref.name },
      predicate,
      { timeout: options.timeout, signal: exited.signal },
    );
  }

  async stop(options: { signal?: NodeJS.Signals; timeout?: number } = {}): Promise<OperatorExit> {
    const { signal = 'SIGTERM', timeout = 10_000 } = options;
    if (!this.exit) {
      this.child.kill(signal);
      const timer = setTimeout(() => {
        this.append([`runOperator: no exit ${timeout} ms after ${signal}; killing it`]);
        this.child.kill('SIGKILL');
      }, timeout);
      const late = new Promise<'late'>((resolve) => setTimeout(resolve, 2 * timeout, 'late').unref());
      const outcome = await Promise.race([this.exited, late]);
      clearTimeout(timer);
      if (outcome === 'late') this.giveUp(timeout);
    }
    return this.exited;
  }

  /** The stop's deadline has passed: settle with what is known, or say what hangs. */
  private giveUp(timeout: number): void {
    if (this.exit) return;
    if (!this.ended) {
      throw new Error(
        `The operator (${this.command.join(' ')}, pid ${this.pid}) did not exit within ${timeout} ms after SIGKILL.`
      );
    }
    this.append(
      [
        `runOperator: the operator exited, but its output was still open ${timeout} ms after: a process it started ` +
          `holds it; not waiting for that`
      ]
    );
    this.finish(this.ended.exitCode, this.ended.signal);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private append(lines: readonly string[]): void {
    if (!lines.length) return;
    for (const line of lines) {
      this.lines.push(line);
      if (this.echo) process.stderr.write(`[operator ${this.pid}] ${line}\n`);
    }
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Why a wait failed: `what` happened before `awaited` came; with the output's last lines. */
  private failure(what: string, awaited: string): Error {
    const tail = this.lines.slice(-TAIL).map((line) => `  | ${line}`).join('\n');
    return new Error(`The operator (${this.command.join(' ')}) ${what} ${awaited}. Last lines:\n${tail}`);
  }
}

function lineWanted(pattern: RegExp | string, count: number): string {
  return `a line matching ${String(pattern)}${count > 1 ? ` ${count} times` : ''}`;
}

let guardPath: string | null | undefined;

/** `setpriv` (util-linux) when present: it sets the parent-death signal and execs the command. */
function deathSignalGuard(): string | null {
  if (guardPath !== undefined) return guardPath;
  guardPath = process.platform === 'linux' ? onPath('setpriv') ?? null : null;
  return guardPath;
}
