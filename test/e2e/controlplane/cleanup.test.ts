/**
 * A test run that ends in any way leaves no control plane behind: SIGKILLed, signalled, or
 * simply ending without stop().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { eventually, isRunning, processesMentioning } from '../../unit/testing/controlplane/host.ts';

interface Holder {
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  kill: (signal: NodeJS.Signals) => void;
  plane: { apiServerPid: number; etcdPid: number; ports: number[]; dir: string };
}

const TESTING = new URL('../../../runtime/testing.ts', import.meta.url).href;

/** Another Node process that starts a control plane, reports it, then runs `then`. */
async function holder(then: string): Promise<Holder> {
  const script = `
    import { startControlPlane } from ${JSON.stringify(TESTING)};
    const cp = await startControlPlane();
    const ports = [cp.server, cp.etcdUrl].map((url) => Number(new URL(url).port));
    console.log(JSON.stringify({ apiServerPid: cp.apiServerPid, etcdPid: cp.etcdPid, ports, dir: cp.dir }));
    ${then}
  `;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: child.stdout });
  const [line] = (
    await Promise.race([once(lines, 'line'), exited.then(() => assert.fail('the holder exited early'))])
  ) as [string];
  return { exited, kill: (signal) => child.kill(signal), plane: JSON.parse(line) as Holder['plane'] };
}

async function assertNothingLeft(plane: Holder['plane']): Promise<void> {
  await eventually(
    'kube-apiserver and etcd are gone',
    () => !isRunning(plane.apiServerPid) && !isRunning(plane.etcdPid),
  );
  // By command line, not by listening sockets: another test's control plane may get a freed port.
  const [apiServerPort, etcdPort] = plane.ports;
  await eventually('no process serves their ports', () =>
    processesMentioning(
      `--secure-port=${apiServerPort} `
    ).length === 0 && processesMentioning(`127.0.0.1:${etcdPort}`).length === 0);
  await eventually('their state is removed', () => !existsSync(plane.dir));
  await eventually('no watchdog helper is left', () => processesMentioning(plane.dir).length === 0);
}

test('a SIGKILLed holder leaves no kube-apiserver, etcd, port or state behind', async () => {
  const h = await holder('setInterval(() => {}, 1000);');
  assert.ok(isRunning(h.plane.apiServerPid) && isRunning(h.plane.etcdPid));
  h.kill('SIGKILL');
  assert.deepEqual(await h.exited, [null, 'SIGKILL']);
  await assertNothingLeft(h.plane);
});

test('a SIGTERMed holder stops its control plane, then dies of the signal as it would have', async () => {
  const h = await holder('setInterval(() => {}, 1000);');
  h.kill('SIGTERM');
  assert.deepEqual(await h.exited, [null, 'SIGTERM']);
  await assertNothingLeft(h.plane);
});

test('a holder that ends without stop() takes its control plane along', async () => {
  const h = await holder('/* nothing: the program ends here */');
  assert.deepEqual(await h.exited, [0, null]);
  await assertNothingLeft(h.plane);
});
