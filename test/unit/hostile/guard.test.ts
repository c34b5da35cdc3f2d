/**
 * `kopf run`'s last resort: a promise rejected with nothing to handle it is logged and the operator
 * goes on (Node would end the process); an exception nothing catches is logged and stops the
 * operator gracefully, with exit code 1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));
const RUNTIME = pathToFileURL(fileURLToPath(new URL('../../../runtime/index.ts', import.meta.url))).href;

/** Runs `kopf run` on these handlers, with no Kubernetes configuration to be found. */
function kopfRun(handlers: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-guard-'));
  try {
    writeFileSync(join(dir, 'handlers.ts'), `import { on } from ${JSON.stringify(RUNTIME)};\n${handlers}`);
    const env = { ...process.env, HOME: dir, KUBECONFIG: '' };
    const argv = [CLI, 'run', '--standalone', '-A', '--log-format', 'plain', 'handlers.ts'];
    const run = spawnSync(process.execPath, argv, { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a forgotten rejected promise is logged with its stack, and the operator goes on', () => {
  const run = kopfRun(`
on.startup(async function forgetful() {
  void Promise.reject(new Error('a forgotten promise'));
  await new Promise((resolve) => setImmediate(resolve)); // past the moment Node looks for unhandled rejections
  console.log('the startup handler goes on');
});
`);
  const logged = 'A promise was rejected and nothing handled it (a bug); the operator goes on: a forgotten promise';
  assert.ok(run.output.includes(logged), run.output);
  assert.match(run.output, /Error: a forgotten promise\n\s+at .*forgetful.*handlers\.ts:4:/, 'with the stack');
  assert.ok(run.output.includes('the startup handler goes on'), run.output);
  // It went on until the next thing that stops it: there is no cluster to serve.
  assert.match(run.output, /The operator has failed: no Kubernetes configuration/);
  assert.equal(run.status, 1);
});

test('an uncaught exception is logged and stops the operator gracefully, with exit code 1', () => {
  const run = kopfRun(`
on.startup(async function thrower({ signal }) {
  setImmediate(() => { throw new Error('thrown from a callback'); });
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  console.log('the startup handler is told to stop');
});
`);
  const logged = 'An exception was thrown and nothing caught it (a bug); the operator stops: thrown from a callback';
  assert.ok(run.output.includes(logged), run.output);
  assert.ok(run.output.includes('the startup handler is told to stop'), run.output);
  assert.equal(run.status, 1);
});
