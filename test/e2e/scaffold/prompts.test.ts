/**
 * create-kopf-operator in a terminal: it asks for what the options leave open, and uses the
 * answers. The terminal is a pseudo-terminal made by util-linux `script`; keys are sent as each
 * question appears on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run, userEnv } from '../packaging/packages.ts';

const BACKSPACE = '\x7f';
const DOWN = '\x1b[B';
const ENTER = '\r';

test('in a terminal, the questions take the answers typed, and defaults on Enter', async (t) => {
  if ((await run('script', ['--version']).catch(() => undefined))?.status !== 0) {
    t.skip('no util-linux `script` here to make a terminal: the questions were not tried');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kopf-prompts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A terminal of a real size: on one of width 0, every character is a line of its own.
  const create = `${process.execPath} ${join(ROOT, 'create', 'cli', 'main.ts')} --from ${ROOT} --no-install`;
  const terminal = spawn('script', ['-qec', `stty cols 120 rows 40; ${create}`, '/dev/null'], {
    cwd: dir, env: userEnv({ TERM: 'xterm' }), stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.after(() => terminal.kill('SIGKILL'));
  let screen = '';
  const closed = new Promise<number | null>((resolve) => terminal.once('close', resolve));
  const answers: [string, string][] = [
    ['Folder for the new project', ENTER],
    ['Kind of the custom resource', `${BACKSPACE.repeat('Widget'.length)}Gadget${ENTER}`],
    ['API group', ENTER],
    ['API version', ENTER],
    ['Scope', `${DOWN}${ENTER}`],
  ];
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    // Each answer goes once its question is on the screen, after the previous one's.
    const [question, keys] = answers[0] ?? [];
    if (question && screen.lastIndexOf(question) > screen.lastIndexOf('◇')) {
      answers.shift();
      terminal.stdin.write(keys);
    }
  });
  const deadline = setTimeout(() => terminal.kill('SIGKILL'), 60_000);
  const code = await closed;
  clearTimeout(deadline);
  assert.equal(code, 0, screen);
  assert.deepEqual(answers, [], `not asked:\n${screen}`);
  const crd = readFileSync(join(dir, 'my-operator', 'crds', 'gadgets.yaml'), 'utf8');
  assert.match(crd, /^ {2}scope: Cluster$/m);
  assert.match(crd, /^ {2}group: example\.com$/m);
  assert.match(screen, /Creating an operator for Gadget \(gadgets\.example\.com, Cluster\) in my-operator/);
});
