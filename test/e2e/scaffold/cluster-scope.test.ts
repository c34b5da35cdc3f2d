/**
 * A project made for a cluster-scoped kind passes its own test on a local control plane, with the
 * operator bound to its deploy/rbac.yaml: the kind cluster-wide, its ConfigMaps by a Role in the
 * one namespace they go to. Made from this checkout without an installation (its `kopf` is this
 * one), since the packaging is scaffold.test.ts's concern.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEFAULTS, scaffold } from '../../../create/index.ts';
import { ROOT, run } from '../packaging/packages.ts';

test('a cluster-scoped kind: the project\'s test passes under its RBAC, which grants the ConfigMaps in one ' +
  'namespace only', async (t) => {
  const temp = mkdtempSync(join(tmpdir(), 'kopf-scaffold-cluster-'));
  t.after(() => rmSync(temp, { recursive: true, force: true }));
  const dir = join(temp, 'my-op');
  await scaffold({ ...DEFAULTS, dir, name: 'my-op', scope: 'Cluster', install: false });
  symlinkSync(resolve(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const kinds = parseAllDocuments(readFileSync(join(dir, 'deploy', 'rbac.yaml'), 'utf8'))
    .map((doc) => (doc.toJS() as { kind: string; metadata: { namespace?: string } }))
    .map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`);
  assert.deepEqual(
    kinds,
    ['ServiceAccount/my-op', 'ClusterRole/', 'ClusterRoleBinding/', 'Role/default', 'RoleBinding/default'],
  );
  const result = await run(process.execPath, ['--test', 'test/widget.test.ts'], { cwd: dir });
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /^ℹ pass 1$/m);
});
