import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SupervisedProcess } from '../../../runtime/testing/controlplane/processes.ts';
import { tempDir } from './fakes.ts';

/** Alive and not a zombie: a dead child whose new parent has not reaped it yet counts as gone. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Processes whose command line mentions `marker` (the watchdog's helper carries the state folder). */
function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) && isRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Polls: the death of a process that is not our child cannot be awaited. */
async function eventually(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

const NODE_IGNORING_SIGTERM = ['-e', "process.on('SIGTERM', () => console.log('ignored SIGTERM')); console.log('up'); setInterval(() => {}, 1000)"];

test('the pid, the exit status and the log are the binary\'s own', async () => {
  const dir = tempDir('proc');
  const child = new SupervisedProcess({ name: 'fails', command: '/bin/sh', args: ['-c', 'echo about to fail; exit 3'], logPath: join(dir, 'log') });
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

  const stubborn = new SupervisedProcess({ name: 'stubborn', command: process.execPath, args: NODE_IGNORING_SIGTERM, logPath: join(dir, 'b.log') });
  await eventually('it is up', () => stubborn.logTail().includes('up'));
  const exit = await stubborn.stop(300);
  assert.equal(exit.signal, 'SIGKILL');
  assert.match(stubborn.logTail(), /ignored SIGTERM/);
});

test('after a normal exit, no watchdog helper is left behind', async () => {
  const dir = tempDir('proc');
  const marker = join(dir, 'state-marker');
  const child = new SupervisedProcess({ name: 'sleep', command: 'sleep', args: ['60'], logPath: join(dir, 'log'), orphanCleanupDir: marker });
  await eventually('the helper runs', () => processesMentioning(marker).length > 0);
  await child.stop();
  await eventually('the helper is gone', () => processesMentioning(marker).length === 0);
});

test('a SIGKILLed parent takes its supervised child with it, and the state folder too', async () => {
  const dir = tempDir('proc');
  const state = join(dir, 'state');
  mkdirSync(state);
  writeFileSync(join(state, 'data'), 'x');
  const script = `
    import { SupervisedProcess } from ${JSON.stringify(new URL('../../../runtime/testing/controlplane/processes.ts', import.meta.url).href)};
    const child = new SupervisedProcess({ name: 'sleep', command: 'sleep', args: ['60'], logPath: ${JSON.stringify(join(dir, 'log'))}, orphanCleanupDir: ${JSON.stringify(state)} });
    console.log(child.pid);
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  assert.ok(isRunning(pid));
  parent.kill('SIGKILL');
  await once(parent, 'exit');
  await eventually('the orphan is killed', () => !isRunning(pid));
  await eventually('its state is removed', () => !existsSync(state));
});
