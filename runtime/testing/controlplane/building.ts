/**
 * Building kube-apiserver, kubectl and etcd from the Go module proxy (no Docker, no downloads from
 * release buckets): two throw-away wrapper modules in a work folder under the cache, a lock so that
 * parallel processes never build at once, temporary names renamed into place so that a reader never
 * sees a half-written binary. A cold build takes minutes, so it reports each step and keeps talking.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { notOwnPath } from '../../files/ownership.ts';
import { buildWorkDir, controlPlaneCacheDir } from './cache.ts';
import { kubernetesVersionLdflags, kubernetesWrapperGoMod, parseUpstreamGoMod } from './gomod.ts';
import { acquireLock } from './locks.ts';
import { PREFIX, defaultReporter, type ProgressReporter } from './progress.ts';
import { formatDuration, lastLines } from './text.ts';
import { firstVerified, freshFolderName, rootRefusal, sha512Of, writeRecord, type Digests } from './verified.ts';
import { ETCD_VERSION, KUBERNETES_VERSION, cacheFolderName, type BinaryName } from './versions.ts';

export interface BuildOptions {
  env?: NodeJS.ProcessEnv;
  onProgress?: ProgressReporter;
  /** How often to say "still building" during a long step. */
  heartbeatMs?: number;
  signal?: AbortSignal;
}

export class BuildError extends Error {
  override name = 'BuildError';
  readonly step: string;
  readonly logPath: string;

  constructor(step: string, detail: string, logPath: string, tail: string) {
    super(`Building the control plane failed at step "${step}": ${detail}.\nFull log: ${logPath}\n${tail}`);
    this.step = step;
    this.logPath = logPath;
  }
}

const GO_PACKAGES: Record<BinaryName, string> = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  etcd: 'go.etcd.io/etcd/server/v3',
};

interface Step {
  title: string;
  run: () => Promise<void>;
}

/**
 * Builds the named binaries into the cache's verified folder, or a new one, unless another process
 * has built them meanwhile.
 */
export async function buildBinaries(names: readonly BinaryName[], options: BuildOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const report = options.onProgress ?? defaultReporter;
  const root = controlPlaneCacheDir(env);
  const workDir = buildWorkDir(env);
  const refused = rootRefusal(root) ?? privateFolder(workDir);
  if (refused) throw new Error(`Not building the control plane: ${refused}`);
  const lock = await acquireLock(join(workDir, 'build.lock'), {
    signal: options.signal,
    onWait: (owner, waited) => report(
      `${PREFIX} waiting for another build (process ${owner}) to finish: ${formatDuration(waited)}`
    ),
  });
  try {
    // Under the lock: what another process built meanwhile is verified like anything else.
    const { folder } = firstVerified(root, cacheFolderName());
    const todo = names.filter((name) => !folder?.paths[name]);
    if (todo.length === 0) {
      report(`${PREFIX} built by another process meanwhile: ${folder?.dir}`);
      return;
    }
    const binDir = folder?.dir ?? freshFolderName(root, cacheFolderName());
    mkdirSync(binDir, { recursive: true, mode: 0o700 });
    const logPath = join(workDir, 'build.log');
    try {
      await runSteps(
        planSteps(todo, binDir, workDir, logPath, env, options.signal),
        logPath,
        report,
        options.heartbeatMs ?? 20_000,
      );
    } finally {
      for (const name of todo) rmSync(temporaryPath(binDir, name), { force: true });
    }
    report(`${PREFIX} binaries are in ${binDir}`);
  } finally {
    lock.release();
  }
}

/** What the steps share: where to work, and how to run go there with its output in the log. */
interface BuildContext {
  binDir: string;
  workDir: string;
  /** The environment go runs in (the caller's, plus the build's settings). */
  env: NodeJS.ProcessEnv;
  go: (cwd: string, args: string[], env?: NodeJS.ProcessEnv) => Promise<string>;
}

function planSteps(
  names: readonly BinaryName[],
  binDir: string,
  workDir: string,
  logPath: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Step[] {
  const goEnv: NodeJS.ProcessEnv = { ...env, GOFLAGS: '-mod=mod', GOWORK: 'off', CGO_ENABLED: '0' };
  const context: BuildContext = {
    binDir, workDir, env: goEnv, go: (cwd, args, environment = goEnv) => runGo(cwd, args, environment, logPath, signal),
  };
  const kubernetes = names.filter((name) => name !== 'etcd');
  return [
    ...(kubernetes.length ? kubernetesSteps(kubernetes, context) : []),
    ...(names.includes('etcd') ? etcdSteps(context) : []),
    {
      title: `install into ${binDir}`,
      run: async () => install(names, binDir),
    },
  ];
}

function kubernetesSteps(names: readonly BinaryName[], { binDir, workDir, env, go }: BuildContext): Step[] {
  const moduleDir = join(workDir, 'kubernetes');
  const module = `k8s.io/kubernetes@v${KUBERNETES_VERSION}`;
  let buildDate = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return [
    {
      title: `read ${module}'s go.mod for its staging modules`,
      run: async () => {
        mkdirSync(moduleDir, { recursive: true });
        // Outside any module, with -mod unset: `go mod download` refuses -mod=mod there.
        const json = await go(workDir, ['mod', 'download', '-json', module], { ...env, GOFLAGS: '' });
        const info = JSON.parse(json) as { GoMod?: string; Info?: string; Error?: string };
        if (info.Error || !info.GoMod) throw new Error(info.Error ?? 'no GoMod in `go mod download -json` output');
        const upstream = parseUpstreamGoMod(readFileSync(info.GoMod, 'utf8'));
        // The release's own time, so that rebuilding gives the same binary.
        buildDate = releaseTime(info.Info) ?? buildDate;
        writeFileSync(join(moduleDir, 'go.mod'), kubernetesWrapperGoMod(upstream, KUBERNETES_VERSION));
        rmSync(join(moduleDir, 'go.sum'), { force: true });
      },
    },
    {
      title: `resolve the dependencies of ${module}`,
      run: async () => void (await go(moduleDir, ['get', module])),
    },
    ...names.map((name) => ({
      title: `compile ${name} (downloading the modules it needs)`,
      run: async () => {
        const ldflags = ['-s', '-w', ...kubernetesVersionLdflags(KUBERNETES_VERSION, buildDate)].join(' ');
        const args = ['build', '-trimpath', '-tags=selinux,notest,grpcnotrace', `-ldflags=${ldflags}`];
        await go(moduleDir, [...args, '-o', temporaryPath(binDir, name), GO_PACKAGES[name]]);
      },
    })),
  ];
}

/** etcd's main package has replace directives too, so it is built from a wrapper module as well. */
function etcdSteps({ binDir, workDir, go }: BuildContext): Step[] {
  const moduleDir = join(workDir, 'etcd');
  return [
    {
      title: `resolve the dependencies of go.etcd.io/etcd/server/v3@v${ETCD_VERSION}`,
      run: async () => {
        mkdirSync(moduleDir, { recursive: true });
        writeFileSync(join(moduleDir, 'go.mod'), 'module example.invalid/kopf-etcd-build\n');
        rmSync(join(moduleDir, 'go.sum'), { force: true });
        await go(moduleDir, ['get', `go.etcd.io/etcd/server/v3@v${ETCD_VERSION}`]);
      },
    },
    {
      title: 'compile etcd (downloading the modules it needs)',
      run: async () => {
        const ldflags = `-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=v${ETCD_VERSION}`;
        await go(
          moduleDir,
          ['build', '-trimpath', `-ldflags=${ldflags}`, '-o', temporaryPath(binDir, 'etcd'), GO_PACKAGES.etcd],
        );
      },
    },
  ];
}

/**
 * Moves the built binaries into place and records their digests, taken from the files the build
 * just wrote; made private first, as Go writes them with the user's umask.
 */
function install(names: readonly BinaryName[], binDir: string): void {
  const digests: Digests = {};
  for (const name of names) {
    const temporary = temporaryPath(binDir, name);
    chmodSync(temporary, 0o755);
    digests[name] = sha512Of(temporary);
    renameSync(temporary, join(binDir, name));
  }
  writeRecord(binDir, digests);
}

/** The build's work folder (where go reads go.mod) must be the user's own, as the binaries are. */
function privateFolder(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const refused = notOwnPath(dir, 'directory');
  return refused && `${dir} ${refused}`;
}

/** Next to the final path (a rename within one folder is atomic), hidden, and unique per process. */
function temporaryPath(binDir: string, name: BinaryName): string {
  return join(binDir, `.${name}.building-${process.pid}`);
}

function releaseTime(infoPath: string | undefined): string | null {
  if (!infoPath) return null;
  try {
    const time = (JSON.parse(readFileSync(infoPath, 'utf8')) as { Time?: string }).Time;
    return time ?? null;
  } catch {
    return null;
  }
}

async function runSteps(steps: Step[], logPath: string, report: ProgressReporter, heartbeatMs: number): Promise<void> {
  if (existsSync(logPath)) renameSync(logPath, logPath.replace(/\.log$/, '.previous.log'));
  writeFileSync(logPath, `kopf control-plane build, ${new Date().toISOString()}\n`);
  const started = Date.now();
  report(
    `${PREFIX} building from the Go module proxy (Kubernetes v${KUBERNETES_VERSION}, etcd v${ETCD_VERSION}); log: ` +
      `${logPath}`
  );
  for (const [index, step] of steps.entries()) {
    const label = `step ${index + 1}/${steps.length}: ${step.title}`;
    const stepStarted = Date.now();
    report(`${PREFIX} ${label} …`);
    appendLog(logPath, `\n=== ${label}\n`);
    const heartbeat = setInterval(() => {
      report(
        `${PREFIX}   still at ${label}: ${formatDuration(Date.now() - stepStarted)} (total ` +
          `${formatDuration(Date.now() - started)})`
      );
    }, heartbeatMs);
    try {
      await step.run();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new BuildError(step.title, detail, logPath, lastLines(readFileSync(logPath, 'utf8'), 20));
    } finally {
      clearInterval(heartbeat);
    }
    report(`${PREFIX}   done in ${formatDuration(Date.now() - stepStarted)}`);
  }
  report(`${PREFIX} built in ${formatDuration(Date.now() - started)}`);
}

function appendLog(path: string, text: string): void {
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Runs go with its output appended to the build log; resolves to its stdout. */
function runGo(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logPath: string,
  signal?: AbortSignal,
): Promise<string> {
  appendLog(logPath, `$ (cd ${cwd} && go ${args.join(' ')})\n`);
  const log = openSync(logPath, 'a');
  return new Promise<string>((resolve, reject) => {
    const child = spawn('go', args, { cwd, env, stdio: ['ignore', 'pipe', log], signal });
    closeSync(log);
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      appendLog(logPath, chunk);
    });
    child.once('error', reject);
    child.once('close', (code, sig) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`\`go ${args[0]}\` exited with ${sig ?? `code ${code}`}`));
    });
  });
}
