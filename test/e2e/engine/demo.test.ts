/**
 * `kopf demo`: an example on an embedded control plane, shown and stopped (the repository's `npm start` runs it on a
 * new project).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..', '..');

test('kopf demo runs the minimal example and shows what its handler did', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    'runtime/cli/main.ts',
    'demo',
    '--crd',
    'examples/crd.yaml',
    '--object',
    'examples/obj.yaml',
    'examples/01-minimal/example.ts',
  ], { cwd: root, timeout: 180_000 });
  assert.match(stdout, /\[default\/kopf-example-1\] Handler 'create_fn' succeeded\./);
  assert.match(stdout, /status: +\{"create_fn":\{"message":"hello world"\}\}/);
  assert.match(stdout, /kopf\.zalando\.org\/last-handled-configuration: \{"spec":\{"duration":"1m"/);
  assert.match(stdout, /Deleted, and the operator has let it go\./);
  assert.match(stdout, /The control plane has stopped/);
});
