import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  acquireLock, isIdentityAlive, processIdentity, tryLock,
} from '../../../../runtime/testing/controlplane/locks.ts';
import { reservePorts } from '../../../../runtime/testing/controlplane/ports.ts';
import { tempDir } from './fakes.ts';

test('a lock is exclusive until released, and its file holds the owner', () => {
  const path = join(tempDir('lock'), 'sub', 'x.lock');
  const lock = tryLock(path);
  assert.ok(lock);
  assert.equal(readFileSync(path, 'utf8').trim(), processIdentity(process.pid));
  assert.equal(tryLock(path), null);
  lock.release();
  assert.ok(!existsSync(path));
  const again = tryLock(path);
  assert.ok(again);
  again.release();
});

test('a lock whose owner has died is taken over', () => {
  const path = join(tempDir('lock'), 'x.lock');
  const dead = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout.trim());
  writeFileSync(path, `${deadPid}\n`);
  assert.equal(isIdentityAlive(`${deadPid}`), false);
  const lock = tryLock(path);
  assert.ok(lock);
  lock.release();
});

test('a reused pid (same number, other start time) does not keep a lock alive (Linux: /proc)', () => {
  const path = join(tempDir('lock'), 'x.lock');
  writeFileSync(path, `${process.pid}:1\n`);
  const lock = tryLock(path);
  assert.ok(lock);
  lock.release();
});

test('a live owner in another process keeps its lock', async () => {
  const path = join(tempDir('lock'), 'x.lock');
  const child = spawn('sleep', ['30']);
  try {
    writeFileSync(path, `${processIdentity(child.pid ?? 0)}\n`);
    assert.equal(tryLock(path), null);
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  const lock = tryLock(path);
  assert.ok(lock, 'free once its owner is gone');
  lock.release();
});

test('acquireLock waits for the holder and says so', async () => {
  const path = join(tempDir('lock'), 'x.lock');
  const held = tryLock(path);
  assert.ok(held);
  const waits: string[] = [];
  const waiting = acquireLock(path, { onWait: (owner) => waits.push(owner) });
  let acquired = false;
  void waiting.then(() => (acquired = true));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(acquired, false);
  held.release();
  const lock = await waiting;
  assert.equal(waits[0], processIdentity(process.pid));
  lock.release();
});

test('reserved ports are distinct and not handed out again until released', async () => {
  const env = { XDG_CACHE_HOME: tempDir('xdg') };
  const first = await reservePorts(3, env);
  const second = await reservePorts(3, env);
  const ports = [...first, ...second].map((r) => r.port);
  assert.equal(new Set(ports).size, 6);
  for (const reservation of [...first, ...second]) reservation.release();
  for (const port of ports) assert.ok(!existsSync(join(env.XDG_CACHE_HOME, 'kopf', 'ports', `port-${port}`)));
});

test('a lock file still being written (empty, fresh) is not taken for a dead one', () => {
  const path = join(tempDir('lock'), 'x.lock');
  writeFileSync(path, '');
  assert.equal(tryLock(path), null);
});

test('reservations left by dead processes are swept away', async () => {
  const env = { XDG_CACHE_HOME: tempDir('xdg') };
  const dir = join(env.XDG_CACHE_HOME, 'kopf', 'ports');
  const dead = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'port-1'), `${dead}\n`);
  const [reservation] = await reservePorts(1, env);
  assert.ok(!existsSync(join(dir, 'port-1')));
  reservation.release();
});
