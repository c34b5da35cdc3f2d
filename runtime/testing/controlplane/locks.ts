/**
 * Lock files between processes of one machine: a file created exclusively, holding the identity of
 * the process that owns it. A lock whose owner has died is taken over, so a SIGKILLed test run
 * never blocks the next one. Node has no flock(); exclusive creation is atomic on local file systems.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Lock {
  readonly path: string;
  release(): void;
}

/**
 * A process's identity: its pid, plus (on Linux) its start time, so that a pid reused after the
 * owner died (or after a reboot) does not keep a lock alive.
 */
export function processIdentity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${pid}:${fields[19]}`;
  } catch {
    return isAlive(pid) ? `${pid}` : null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process that wrote this identity still runs. */
export function isIdentityAlive(identity: string): boolean {
  const pid = Number(identity.split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const current = processIdentity(pid);
  if (current === null) return false;
  return !identity.includes(':') || !current.includes(':') || current === identity;
}

/** The identity stored in a lock file, or null if the file is gone. */
function lockOwner(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${content}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Removing a dead owner's lock and creating ours are two steps; a short-lived guard file makes them
 * one, so two processes that both saw the dead owner cannot both end up holding the lock.
 */
function takeOverIfDead(path: string, identity: string): boolean {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, identity)) {
    const owner = lockOwner(guard);
    const age = ageMs(guard);
    if ((owner !== null && !isIdentityAlive(owner)) || age > 10_000) removeQuietly(guard);
    return false;
  }
  try {
    const owner = lockOwner(path);
    // Empty: its creator has not written its identity yet (creating and writing are two steps).
    if (owner === '' && ageMs(path) < 5000) return false;
    if (owner !== null && owner !== '' && isIdentityAlive(owner)) return false;
    removeQuietly(path);
    return createExclusive(path, identity);
  } finally {
    removeQuietly(guard);
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Takes the lock if it is free (or its owner is dead); null if a live process holds it. */
export function tryLock(path: string): Lock | null {
  mkdirSync(dirname(path), { recursive: true });
  const identity = processIdentity(process.pid) ?? `${process.pid}`;
  if (!createExclusive(path, identity) && !takeOverIfDead(path, identity)) return null;
  let held = true;
  return {
    path,
    release(): void {
      if (!held) return;
      held = false;
      if (lockOwner(path) === identity) removeQuietly(path);
    },
  };
}

export interface WaitOptions {
  /** Called when waiting starts and every `reportEveryMs` while another process holds the lock. */
  onWait?: (owner: string, waitedMs: number) => void;
  reportEveryMs?: number;
  signal?: AbortSignal;
}

/**
 * Waits until the lock is ours. Polls: another process's unlink cannot be awaited portably
 * (fs.watch misses events on some file systems).
 */
export async function acquireLock(path: string, options: WaitOptions = {}): Promise<Lock> {
  const started = Date.now();
  let reported = -Infinity;
  for (;;) {
    const lock = tryLock(path);
    if (lock) return lock;
    options.signal?.throwIfAborted();
    const now = Date.now();
    if (options.onWait && now - reported >= (options.reportEveryMs ?? 15_000)) {
      reported = now;
      options.onWait(lockOwner(path) ?? 'unknown', now - started);
    }
    await sleep(250, undefined, { signal: options.signal });
  }
}
