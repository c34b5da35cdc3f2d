/**
 * Python Kopf 1.44, the behavioural reference, for tests and benchmarks that run it beside ours.
 *
 * Installed on demand into a virtualenv outside the repository and reused when present; a lock
 * directory makes parallel test files wait for one installation instead of racing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const KOPF_REQUIREMENT = 'kopf==1.44.*';

/** Where the virtualenv lives: `~/.cache/kopf/venv-kopf-1.44` (XDG_CACHE_HOME respected). */
export function kopfVenvDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kopf', 'venv-kopf-1.44');
}

/** The venv's Python with Kopf 1.44 importable; installs it first if needed (a minute or so). */
export async function kopfPython(): Promise<string> {
  const dir = kopfVenvDir();
  const python = join(dir, 'bin', 'python');
  if (await hasKopf(python)) return python;
  const lock = `${dir}.lock`;
  await acquire(lock);
  try {
    if (await hasKopf(python)) return python;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await run('python3', ['-m', 'venv', dir]);
    await run(
      python,
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', KOPF_REQUIREMENT],
      { maxBuffer: 16 << 20 },
    );
    if (!(await hasKopf(python)))
      throw new Error(`pip installed ${KOPF_REQUIREMENT} into ${dir}, but Python cannot import it`);
    return python;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The command that runs `kopf run` with that Python, for `runOperator({ command })`. */
export async function kopfRunCommand(): Promise<string[]> {
  return [await kopfPython(), '-m', 'kopf', 'run'];
}

async function hasKopf(python: string): Promise<boolean> {
  if (!existsSync(python)) return false;
  try {
    const { stdout } = await run(python, ['-c', 'import kopf, importlib.metadata as m; print(m.version("kopf"))']);
    return stdout.trim().startsWith('1.44.');
  } catch {
    return false;
  }
}

/** A directory as a lock: `mkdir` is atomic. A lock older than 10 minutes is a dead installer's. */
async function acquire(lock: string): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock, { recursive: false });
      return;
    } catch {
      const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : 0;
      if (age > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`Timed out waiting for another installation of Kopf (lock ${lock})`);
      // Another process is installing; nothing to await across processes, so poll.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
