import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runOperator } from '../../../runtime/testing/runner.ts';

/** A stand-in operator: a Node script as the command. */
function script(source: string): string[] {
  return [process.execPath, '-e', source];
}

const GRACEFUL = `
  console.log('starting');
  setTimeout(() => console.error('ready on stderr'), 50);
  process.on('SIGTERM', () => { console.log('stopping'); process.exit(0); });
  setInterval(() => {}, 1000);
`;

test('waits for a line printed later, on either stream, and stops with the exit code', async () => {
  const op = runOperator({ command: script(GRACEFUL) });
  const line = await op.waitFor(/ready on \w+/);
  assert.equal(line, 'ready on stderr');
  const exit = await op.stop();
  assert.equal(exit.exitCode, 0);
  assert.equal(exit.signal, null);
  assert.match(exit.output, /starting[\s\S]*ready on stderr[\s\S]*stopping/);
});

// Not `await using`: unit tests also run on the Node 22 floor, which lacks it.
test('a string pattern matches a substring', async () => {
  const op = runOperator({ command: script(GRACEFUL) });
  try {
    assert.equal(await op.waitFor('on std'), 'ready on stderr');
  } finally {
    await op.stop();
  }
});

test('resolves on the n-th matching line, counting from a given index', async () => {
  const op = runOperator({ command: script(`for (let i = 1; i <= 3; i++) console.log('tick ' + i);`) });
  assert.equal(await op.waitFor(/tick/, { count: 3 }), 'tick 3');
  assert.equal(await op.waitFor(/tick/, { since: 1 }), 'tick 2');
  await op.stop();
});

test('rejects with the last lines when the process exits before the line appears', async () => {
  const op = runOperator({ command: script(`console.log('some context'); process.exit(3);`) });
  await assert.rejects(op.waitFor(/never printed/), (error: Error) => {
    assert.match(error.message, /exited \(code 3, signal null\) before a line matching \/never printed\//);
    assert.match(error.message, /\| some context/);
    return true;
  });
  assert.equal((await op.exited).exitCode, 3);
});

test('rejects when the line does not appear in time', async () => {
  const op = runOperator({ command: script(GRACEFUL) });
  try {
    await op.waitFor('starting');
    await assert.rejects(op.waitFor(/never printed/, { timeout: 100 }), /did not print within 100 ms/);
  } finally {
    await op.stop();
  }
});

test('keeps a last line that has no newline', async () => {
  const op = runOperator({ command: script(`process.stdout.write('no newline at the end')`) });
  const exit = await op.exited;
  assert.equal(exit.output, 'no newline at the end');
});

test('passes the kubeconfig path and environment, and removes variables set to undefined', async () => {
  process.env.KOPF_RUNNER_TEST_REMOVED = 'present';
  try {
    const op = runOperator({
      command: script(
        `console.log([process.env.KUBECONFIG, process.env.EXTRA, process.env.KOPF_RUNNER_TEST_REMOVED ?? ` +
          `'removed'].join(' '))`
      ),
      kubeconfigPath: '/some/kubeconfig', env: { EXTRA: 'extra', KOPF_RUNNER_TEST_REMOVED: undefined },
    });
    assert.equal(await op.waitFor(/kubeconfig/), '/some/kubeconfig extra removed');
    await op.exited;
  } finally {
    delete process.env.KOPF_RUNNER_TEST_REMOVED;
  }
});

test('appends arguments and files to the command', async () => {
  const op = runOperator(
    {
      command: [...script(`console.log(process.argv.slice(1).join(' '))`), '--'],
      args: ['--standalone', '-n', 'ns'],
      files: ['a.ts', 'b.ts'],
    }
  );
  assert.equal(await op.waitFor(/standalone/), '--standalone -n ns a.ts b.ts');
  await op.exited;
});

test('kills a process that ignores SIGTERM after the stop timeout', async () => {
  const op = runOperator(
    {
      command: script(
        `process.on('SIGTERM', () => console.log('ignored')); console.log('up'); setInterval(() => {}, 1000);`
      )
    }
  );
  await op.waitFor('up');
  const exit = await op.stop({ timeout: 300 });
  assert.equal(exit.signal, 'SIGKILL');
  assert.match(exit.output, /ignored/);
});

test('a command that cannot start settles with an explanation', async () => {
  const op = runOperator({ command: ['/nonexistent/binary'] });
  const exit = await op.exited;
  assert.notEqual(exit.exitCode, 0);
  assert.match(exit.output, /nonexistent/);
});

test('the operator dies with the process that started it, even on SIGKILL', async () => {
  // A middle process starts an operator, prints its pid, and is then killed without a chance to clean up.
  const runner = fileURLToPath(new URL('../../../runtime/testing/runner.ts', import.meta.url));
  const middle = spawn(process.execPath, ['--input-type=module', '-e', `
    import { runOperator } from ${JSON.stringify(runner)};
    const op = runOperator({ command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'] });
    console.log(op.pid);
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>(
    (resolve) => middle.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString())))
  );
  assert.ok(alive(pid), 'the operator runs while its parent does');
  middle.kill('SIGKILL');
  const deadline = Date.now() + 5_000;
  // nothing to await: poll with a deadline
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(!alive(pid), `operator ${pid} outlived its parent`);
});

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

test('stopping has a deadline of its own: an operator that exited while a process it started holds its output is ' +
  'not waited for', { timeout: 60_000 }, async (t) => {
  // The grandchild inherits the output pipes and outlives the operator, as a leaked helper would.
  const op = runOperator({ command: script(`
    process.on('SIGTERM', () => process.exit(0));
    const helper = require('node:child_process').spawn('sleep', ['600'], { stdio: 'inherit' });
    console.log('helper ' + helper.pid);
    setInterval(() => {}, 1000);
  `) });
  const pid = Number((await op.waitFor(/^helper \d+$/)).split(' ')[1]);
  t.after(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ } });
  const exit = await op.stop({ timeout: 300 });
  // Ended by its SIGTERM handler, or by the SIGKILL if that was slow on a busy machine: either way, it is settled.
  assert.ok(exit.exitCode === 0 || exit.signal === 'SIGKILL', JSON.stringify(exit));
  assert.match(
    exit.output,
    /the operator exited, but its output was still open 300 ms after: a process it started holds it/,
  );
});
