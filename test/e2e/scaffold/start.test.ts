/**
 * The repository's `npm start` (scripts/start.ts): a new project scaffolded from this checkout into
 * a temporary folder, its types generated, run on an embedded control plane with its sample object,
 * what the handlers did shown, the object deleted, everything stopped, and the folder removed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ok } from '../packaging/packages.ts';

test('npm start scaffolds an operator, runs it on a local control plane, shows its work and cleans up', async () => {
  const env = { npm_config_prefer_offline: 'true' };
  const { stdout } = await ok(process.execPath, [join(ROOT, 'scripts', 'start.ts')], { cwd: ROOT, env });
  const [, temp] = /Done; (\S+) is removed\./.exec(stdout) ?? [];
  assert.ok(temp, stdout);
  assert.ok(!existsSync(temp), `${temp} is left behind`);
  assert.match(stdout, /Creating an operator for Widget \(widgets\.example\.com, Namespaced\)/);
  assert.match(stdout, /kopf-gen: src\/generated is up to date \(1 CRDs\)/);
  assert.match(stdout, /\[default\/example-widget\] Handler 'createWidget' succeeded\./);
  assert.match(stdout, /status: +\{.*"createWidget":\{"configMap":"example-widget-greeting"\}/);
  const child = /owns ConfigMap default\/example-widget-greeting: \{.*"greeting":"Hello from the example Widget"/;
  assert.match(stdout, child);
  assert.match(stdout, /Deleted, and the operator has let it go\./);
  assert.match(stdout, /The control plane has stopped/);
});
