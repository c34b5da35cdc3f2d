/**
 * A real Prometheus for the end-to-end tests of the metrics. Its binaries (`prometheus` and
 * `promtool`) are found as the control plane's are: on `PATH`, else in kopf's cache
 * (`~/.cache/kopf/prometheus/`), else installed there from Debian's package without root-only
 * steps (`apt-get download` into a temporary folder, `dpkg -x` into the cache). Where none of this
 * works, the reason is returned, for the test to be skipped with it.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot } from '../../../runtime/testing/controlplane/cache.ts';
import { isExecutable, onPath } from '../../../runtime/testing/executables.ts';
import { acquireLock } from '../../../runtime/testing/controlplane/locks.ts';
import { freePort } from '../ports.ts';

const run = promisify(execFile);

export interface PrometheusTools {
  prometheus: string;
  promtool: string;
  /** `PATH`, `cache` or `installed` (from Debian's package, just now). */
  source: string;
}

/** The cache's folder: the package's files as `dpkg -x` lays them out. */
export function prometheusCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'prometheus');
}

function inCache(env: NodeJS.ProcessEnv): Omit<PrometheusTools, 'source'> | undefined {
  const bin = join(prometheusCacheDir(env), 'usr', 'bin');
  const tools = { prometheus: join(bin, 'prometheus'), promtool: join(bin, 'promtool') };
  return isExecutable(tools.prometheus) && isExecutable(tools.promtool) ? tools : undefined;
}

/** The binaries, found or installed; a string saying why not otherwise. */
export async function findPrometheus(env: NodeJS.ProcessEnv = process.env): Promise<PrometheusTools | string> {
  const prometheus = onPath('prometheus', env);
  const promtool = onPath('promtool', env);
  if (prometheus && promtool) return { prometheus, promtool, source: 'PATH' };
  const cached = inCache(env);
  if (cached) return { ...cached, source: 'cache' };
  for (const tool of ['apt-get', 'dpkg']) {
    if (!onPath(tool, env)) return `prometheus/promtool are not on PATH nor in ${prometheusCacheDir(env)}, and ` +
      `${tool} is missing to install Debian's prometheus package there`;
  }
  const dir = prometheusCacheDir(env);
  mkdirSync(cacheRoot(env), { recursive: true });
  // Two test processes installing at once would lay the same files over each other.
  const lock = await acquireLock(`${dir}.lock`, { signal: AbortSignal.timeout(300_000) });
  try {
    const raced = inCache(env);
    if (raced) return { ...raced, source: 'cache' };
    const problem = await installDebianPackage(dir);
    if (problem) return problem;
    const installed = inCache(env);
    return installed ? { ...installed, source: 'installed' } : `Debian's prometheus package has no usr/bin/promtool`;
  } finally {
    lock.release();
  }
}

/** `apt-get download` + `dpkg -x` into `dir`, through a temporary folder; the problem, if any. */
async function installDebianPackage(dir: string): Promise<string | undefined> {
  const work = mkdtempSync(join(tmpdir(), 'kopf-prometheus-'));
  try {
    await run('apt-get', ['download', 'prometheus'], { cwd: work, timeout: 300_000 });
    const deb = readdirSync(work).find((file) => file.endsWith('.deb'));
    if (!deb) return 'apt-get download prometheus left no package';
    const unpacked = join(work, 'unpacked');
    await run('dpkg', ['-x', join(work, deb), unpacked], { timeout: 300_000 });
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    return `installing Debian's prometheus package failed (apt-get update may be needed): ${stderr || error}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `promtool check metrics` on an exposition: its exit status and what it said. */
export function checkMetrics(promtool: string, exposition: string): { status: number | null; output: string } {
  const result = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The output so far, for the messages of failed checks. */
  output(): string;
  stop(): Promise<void>;
}

/** A Prometheus on a free loopback port that scrapes `targets` every second, its data in a temporary folder. */
export async function startPrometheus(
  binary: string, targets: readonly string[], job = 'kopf-operator',
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-prometheus-run-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    `  - job_name: ${job}`,
    '    static_configs:',
    `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    '',
  ].join('\n'));
  const port = await freePort();
  const child = spawn(binary, [
    `--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running: RunningPrometheus = {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await until(async () => (await fetch(`${running.url}/-/ready`).catch(() => undefined))?.ok === true, {
      what: 'Prometheus to be ready', child, output: running.output,
    });
  } catch (error) {
    await running.stop();
    throw error;
  }
  return running;
}

/** The result of an instant query: one entry per series. */
export async function query(prometheus: RunningPrometheus, expr: string): Promise<unknown[]> {
  const response = await fetch(`${prometheus.url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = await response.json() as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? response.status}`);
  return body.data!.result;
}

/** The health of the scrape targets, as Prometheus reports them (`up`, `down`, `unknown`). */
export async function targetHealth(prometheus: RunningPrometheus): Promise<string[]> {
  const response = await fetch(`${prometheus.url}/api/v1/targets`);
  const body = await response.json() as { data: { activeTargets: { health: string }[] } };
  return body.data.activeTargets.map((target) => target.health);
}

/**
 * Polls `condition` (every 200 ms: Prometheus's state changes only with its scrapes and has no
 * event to await) until it holds; throws after `timeoutMs` or when the process has exited.
 */
export async function until(
  condition: () => Promise<boolean>,
  options: { what: string; timeoutMs?: number; child?: ChildProcess; output?: () => string },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (await condition()) return;
    const exited = options.child && (options.child.exitCode !== null || options.child.signalCode !== null);
    if (exited || Date.now() > deadline) {
      const why = exited ? 'the process exited' : 'timed out';
      throw new Error(`Waiting for ${options.what}: ${why}.\n${options.output?.().slice(-3000) ?? ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
