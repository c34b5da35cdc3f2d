/**
 * Free loopback ports that parallel control planes never share. The OS hands out a free port, but
 * it stays free only until someone binds it; between our choice and the binary's bind another test
 * process could get the same number. A lock file per port, held while the control plane lives,
 * closes that gap between kopf's own processes (as envtest does with its port files).
 */
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { portReservationDir } from './cache.ts';
import { tryLock, type Lock } from './locks.ts';

export interface PortReservation {
  readonly port: number;
  release(): void;
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const swept = new Set<string>();

/** Reservations of processes that died without releasing them (SIGKILL) are removed, once per process. */
function sweepStale(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries.filter((name) => /^port-\d+$/.test(name))) tryLock(join(dir, entry))?.release();
}

async function reservePort(env: NodeJS.ProcessEnv = process.env): Promise<PortReservation> {
  const dir = portReservationDir(env);
  sweepStale(dir);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await osFreePort();
    const lock: Lock | null = tryLock(join(dir, `port-${port}`));
    if (lock) return { port, release: () => lock.release() };
  }
  throw new Error(`no free loopback port after 100 attempts (reservations in ${dir})`);
}

export async function reservePorts(count: number, env: NodeJS.ProcessEnv = process.env): Promise<PortReservation[]> {
  const reservations: PortReservation[] = [];
  try {
    // Our own reservations are locks too, so the same port is never handed out twice.
    while (reservations.length < count) reservations.push(await reservePort(env));
    return reservations;
  } catch (error) {
    for (const r of reservations) r.release();
    throw error;
  }
}
