/**
 * The controller-runtime contestants (the reconcile benchmark's `main.go`, the scale benchmark's
 * `kopfprotocol/main.go`, one Go module), built from the Go module proxy into kopf's cache outside the
 * repository, as the local control plane's binaries are: once per version of its sources (go.mod,
 * go.sum and main.go, hashed), under a lock so that parallel runs never build at once, renamed into
 * place so that no run starts a half-written binary. Without Go, or when the build fails (no proxy,
 * say), the contestant is skipped with the reason.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot } from '../../runtime/testing/controlplane/cache.ts';
import { acquireLock } from '../../runtime/testing/controlplane/locks.ts';
import { lastLines } from '../../runtime/testing/controlplane/text.ts';

export const SOURCE_DIR = join(import.meta.dirname, 'controller-runtime');
const SOURCES = ['go.mod', 'go.sum', 'main.go'];
/** The module's other program: Kopf's protocol for one creation handler (the scale benchmark's). */
export const KOPF_PROTOCOL = 'kopfprotocol';

/** The built binary's path, or why there is none. */
export type GoBuild = { binary: string } | { skipped: string };

/** A short hash of the sources: a change to any of them builds a new binary beside the old. */
export function sourcesKey(read: (file: string) => string = readSource, program = '.'): string {
  const hash = createHash('sha256');
  const files = program === '.' ? SOURCES : [...SOURCES, join(program, 'main.go')];
  for (const file of files) hash.update(`${file}\0${read(file)}\0`);
  return hash.digest('hex').slice(0, 16);
}

function readSource(file: string): string {
  return readFileSync(join(SOURCE_DIR, file), 'utf8');
}

/** The module's program in `program` (its main package: `.` or `KOPF_PROTOCOL`), built once. */
export async function buildControllerRuntime(env: NodeJS.ProcessEnv = process.env, program = '.'): Promise<GoBuild> {
  const name = program === '.' ? 'reconcile-controller-runtime' : `controller-runtime-${program}`;
  const dir = join(cacheRoot(env), 'bench', `${name}-${sourcesKey(readSource, program)}`);
  const binary = join(dir, 'operator');
  if (existsSync(binary)) return { binary };
  mkdirSync(dir, { recursive: true });
  const lock = await acquireLock(join(dir, 'build.lock'), {
    onWait: (owner) => process.stderr.write(`Waiting for another build of controller-runtime (${owner})…\n`),
  });
  try {
    if (existsSync(binary)) return { binary };
    const temporary = join(dir, `.operator.building-${process.pid}`);
    process.stderr.write(`Building the controller-runtime contestant into ${dir} (minutes with cold Go caches)…\n`);
    try {
      await promisify(execFile)('go', ['build', '-trimpath', '-o', temporary, `./${program}`], {
        cwd: SOURCE_DIR,
        // The module as committed: its go.sum pins every dependency, nothing is resolved anew.
        env: { ...env, GOFLAGS: '-mod=readonly', GOWORK: 'off', CGO_ENABLED: '0' },
        maxBuffer: 16 * 2 ** 20,
      });
    } catch (error) {
      rmSync(temporary, { force: true });
      return { skipped: whyNotBuilt(error) };
    }
    renameSync(temporary, binary);
    return { binary };
  } finally {
    lock.release();
  }
}

function whyNotBuilt(error: unknown): string {
  const failure = error as NodeJS.ErrnoException & { stderr?: string };
  if (failure.code === 'ENOENT') return 'Go is not installed (no `go` on PATH)';
  return `\`go build\` failed (is the Go module proxy reachable?):\n${lastLines(failure.stderr ?? String(error), 10)}`;
}
