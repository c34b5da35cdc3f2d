/**
 * The published packages as a user gets them, for the tests that install them: each workspace
 * package built by scripts/build-package.ts and packed by npm into a folder of tarballs; Nodes of
 * other versions from the npm `node` package, cached outside the repository; and commands run to
 * their end with npm on the development Node.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../../..');

export interface Run { status: number | null; stdout: string; stderr: string }
export interface RunOptions { cwd?: string; env?: NodeJS.ProcessEnv }

/**
 * The environment of a command run as a user would: without the npm_* settings that `npm test`
 * passes down (they are the repository workspace's, not the project's) and the test runner's own
 * variable, and with the development
 * Node first on PATH, so that npm and the projects' scripts run on it.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // NODE_TEST_CONTEXT would make a project's own `node --test` report to this test runner instead of its output.
  const own = ([key]: [string, unknown]): boolean => /^npm_/i.test(key) || key === 'NODE_TEST_CONTEXT';
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry) => !own(entry)));
  return { ...inherited, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, ...extra };
}

/** Runs a command to its end. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Run> {
  const env = userEnv(options.env);
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

/** A command that goes on until it is stopped (`npm start`), its output awaited as it comes. */
export interface Started {
  /** The first match of the pattern in the output; rejects when the command ends first, or after `seconds`. */
  seen(pattern: RegExp, seconds?: number): Promise<RegExpExecArray>;
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** A signal to the command's whole process group, as Ctrl-C in a terminal sends one. */
  signal(signal: NodeJS.Signals): void;
  /** Ends the process group unless it has ended: for a `finally`. */
  kill(): void;
}

/** Starts a command in a process group of its own, in the user's environment (see `userEnv`). */
export function start(command: string, args: readonly string[], options: RunOptions = {}): Started {
  const child = spawn(command, args, {
    cwd: options.cwd, env: userEnv(options.env), detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) => {
    child.once('close', (code, signal) => resolvePromise({ code, signal }));
    child.once('error', (error) => {
      output += `${command} could not start: ${error.message}\n`;
      resolvePromise({ code: null, signal: null });
    });
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const check of waiters) check();
    });
  }
  const what = `${command} ${args.join(' ')}`;
  const seen = (pattern: RegExp, seconds = 180) => new Promise<RegExpExecArray>((resolvePromise, reject) => {
    const late = (): void => reject(new Error(`no ${pattern} from ${what} in ${seconds} s:\n${output}`));
    const deadline = setTimeout(late, seconds * 1000);
    const check = (): void => {
      const match = pattern.exec(output);
      if (!match) return;
      clearTimeout(deadline);
      waiters.delete(check);
      resolvePromise(match);
    };
    waiters.add(check);
    void closed.then(() => {
      clearTimeout(deadline);
      reject(new Error(`${what} exited before ${pattern}:\n${output}`));
    });
    check();
  });
  const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const signal = (name: NodeJS.Signals): void => {
    if (child.pid !== undefined && !ended()) process.kill(-child.pid, name);
  };
  return { seen, closed, output: () => output, signal, kill: () => signal('SIGKILL') };
}

/** Runs a command that must succeed; the assertion shows its output if it does not. */
export async function ok(command: string, args: readonly string[], options: RunOptions = {}): Promise<Run> {
  const result = await run(command, args, options);
  const what = `${command} ${args.join(' ')}`;
  assert.equal(result.status, 0, `${what} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * Builds the workspace packages into `dir/<package>` and packs them into `packDir` (`dir` unless
 * given); returns the tarballs' paths, in the order asked.
 */
export async function buildAndPack(dir: string, packages: readonly string[], packDir = dir): Promise<string[]> {
  await Promise.all(packages.map((name) =>
    ok(process.execPath, [join(ROOT, 'scripts', 'build-package.ts'), name, '--out', join(dir, name)], { cwd: ROOT })));
  mkdirSync(packDir, { recursive: true });
  const built = packages.map((name) => join(dir, name));
  const packed = await ok('npm', ['pack', '--json', '--pack-destination', packDir, ...built], { cwd: dir });
  return (JSON.parse(packed.stdout) as { filename: string }[]).map((entry) => join(packDir, entry.filename));
}

/** A Node of this version from the npm `node` package, installed once into ~/.cache/kopf/node-<version>/. */
export async function cachedNode(version: string): Promise<string> {
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kopf', `node-${version}`);
  const bin = join(dir, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    await ok('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `node@${version}`]);
  }
  return bin;
}

/** What a command prints on a Node older than its package's floor (`engines.node`, as `MAJOR.MINOR`). */
export function floorMessage(command: string, floor: string, node: string, version: string): string {
  const major = floor.split('.')[0];
  return `${command} needs Node ${floor} or newer; this is Node ${version} (${node}).\n`
    + `Install Node ${major} or newer and try again; from the npm registry alone, either:\n`
    + `  npx -p node@${major} -p ${command} ${command} …   runs this command on Node ${major}, or\n`
    + `  npm install node@${major}   in the project: its npm scripts and npx then run on Node ${major}.\n`;
}
