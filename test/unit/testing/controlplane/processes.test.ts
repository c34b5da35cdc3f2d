import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SupervisedProcess } from '../../../../runtime/testing/controlplane/processes.ts';
import { tempDir } from './fakes.ts';
import { eventually, isRunning, processesMentioning } from './host.ts';

const NODE_IGNORING_SIGTERM = [
  '-e',
  "process.on('SIGTERM', () => console.log('ignored SIGTERM')); console.log('up'); setInterval(() => {}, 1000)",
];

test('the pid, the exit status and the log are the binary\'s own', async () => {
  const dir = tempDir('proc');
  const child = new SupervisedProcess(
    { name: 'fails', command: '/bin/sh', args: ['-c', 'echo about to fail; exit 3'], logPath: join(dir, 'log') }
  );
  const exit = await child.exited;
  assert.equal(exit.code, 3);
  assert.equal(child.running, false);
  assert.match(child.describeExit(), new RegExp(`fails \\(pid ${child.pid}\\) exited with code 3`));
  assert.equal(child.logTail(), 'about to fail');
});

test('stop() ends a process with SIGTERM, and SIGKILLs one that ignores it', async () => {
  const dir = tempDir('proc');
  const polite = new SupervisedProcess({ name: 'sleep', command: 'sleep', args: ['60'], logPath: join(dir, 'a.log') });
  assert.equal((await polite.stop(5000)).signal, 'SIGTERM');

  const stubborn = new SupervisedProcess(
    { name: 'stubborn', command: process.execPath, args: NODE_IGNORING_SIGTERM, logPath: join(dir, 'b.log') }
  );
  await eventually('it is up', () => stubborn.logTail().includes('up'));
  const exit = await stubborn.stop(300);
  assert.equal(exit.signal, 'SIGKILL');
  assert.match(stubborn.logTail(), /ignored SIGTERM/);
});

test('after a normal exit, no watchdog helper is left behind', async () => {
  const dir = tempDir('proc');
  const marker = join(dir, 'state-marker');
  const child = new SupervisedProcess(
    { name: 'sleep', command: 'sleep', args: ['60'], logPath: join(dir, 'log'), orphanCleanupDir: marker }
  );
  await eventually('the helper runs', () => processesMentioning(marker).length > 0);
  await child.stop();
  await eventually('the helper is gone', () => processesMentioning(marker).length === 0);
});

test('a SIGKILLed parent takes its supervised child with it, and the state folder too', async () => {
  const dir = tempDir('proc');
  const state = join(dir, 'state');
  mkdirSync(state);
  writeFileSync(join(state, 'data'), 'x');
  const processes = new URL('../../../../runtime/testing/controlplane/processes.ts', import.meta.url).href;
  const script = `
    import { SupervisedProcess } from ${JSON.stringify(processes)};
    const child = new SupervisedProcess({
      name: 'sleep', command: 'sleep', args: ['60'],
      logPath: ${JSON.stringify(join(dir, 'log'))}, orphanCleanupDir: ${JSON.stringify(state)},
    });
    console.log(child.pid);
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(
    process.execPath,
    ['--input-type=module', '-e', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  assert.ok(isRunning(pid));
  parent.kill('SIGKILL');
  await once(parent, 'exit');
  await eventually('the orphan is killed', () => !isRunning(pid));
  await eventually('its state is removed', () => !existsSync(state));
});
