/**
 * `kopf rbac` on a real API server: an operator run as a service account bound to exactly the
 * RBAC printed for it works end to end (namespaced: Roles; with admission handlers, the managed
 * webhook configurations too; a reconciler's owned and watched resources), and a handler that
 * needs one verb more than declared fails with a 403 that names the verb and the resource
 * (cluster-wide).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { builtins } from '../../../runtime/index.ts';
import { ForbiddenError, KubeClient, createObject, deleteObject, listObjects } from '../../../runtime/kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { waitForObject } from '../../../runtime/testing/waiting.ts';
import { CONFIGURATIONS, type WebhookConfiguration } from '../../../runtime/webhooks/managed.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', '..', 'runtime', 'cli', 'main.ts');
const EXAMPLES = join(import.meta.dirname, '..', '..', '..', 'examples');
const cluster = useCluster();

const DESCRIPTORS: Record<string, ResourceDescriptor> = {
  ServiceAccount: builtins.ServiceAccounts,
  ClusterRole: builtins.ClusterRoles,
  ClusterRoleBinding: builtins.ClusterRoleBindings,
  Role: builtins.Roles, RoleBinding: builtins.RoleBindings,
};

/** Prints the RBAC for the files with `kopf rbac`, applies it, and returns what was printed. */
async function applyRbac(args: string[]): Promise<KubeObject[]> {
  const { stdout } = await run(process.execPath, [CLI, 'rbac', ...args]);
  const objects = parseAllDocuments(stdout).map((doc) => doc.toJS() as KubeObject);
  for (const object of objects) await createObject(cluster.client, DESCRIPTORS[object.kind!]!, object);
  return objects;
}

/** A kubeconfig file for the service account, as its token would authenticate it in a cluster. */
function kubeconfigOfServiceAccount(dir: string, namespace: string, name: string): string {
  const config = cluster.cp.kubeconfigFor(
    `system:serviceaccount:${namespace}:${name}`,
    ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  );
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(path, config.exportConfig());
  return path;
}

test('an operator bound to exactly the printed RBAC (a Role in its namespace) handles its objects and creates its ' +
  'children', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const example = join(EXAMPLES, '02-children', 'example.ts');
  const printed = await applyRbac(['-n', 'default', '--service-account', 'children', example]);
  assert.deepEqual(
    printed.map((o) => o.kind),
    ['ServiceAccount', 'Role', 'RoleBinding'],
    'namespaced: no cluster-wide grants',
  );
  const kubeconfigPath = kubeconfigOfServiceAccount(dir, 'default', 'children');

  // The account may do what the operator needs, and nothing else.
  const account = KubeClient.fromKubeConfig(
    cluster.cp.kubeconfigFor('system:serviceaccount:default:children', ['system:serviceaccounts'])
  );
  t.after(() => account.close());
  const refused = await listObjects(account, builtins.ConfigMaps, { namespace: 'default' }).catch((e: unknown) => e);
  assert.ok(refused instanceof ForbiddenError, `the account must not list configmaps: ${String(refused)}`);

  // Not standalone: the operator looks for the peering objects of its scope, as deployed by default.
  const operator = runOperator({ files: [example], args: ['-n', 'default', '--verbose'], kubeconfigPath });
  t.after(() => operator.stop());
  await operator.waitFor(/Starting the watch-stream for kopfexamples\.v1\.kopf\.dev/, { timeout: 60_000 });
  const owner = await createObject(
    cluster.client,
    KopfExample,
    { metadata: { name: 'kex-rbac', namespace: 'default' }, spec: { field: 'value' } },
  );
  await operator.waitFor("[default/kex-rbac] Handler 'create_fn' succeeded.", { timeout: 60_000 });
  await operator.waitFor('[default/kex-rbac] Creation is processed: 1 succeeded; 0 failed.', { timeout: 60_000 });
  const pods = await listObjects(cluster.client, builtins.Pods, { namespace: 'default' });
  const child = pods.items.find((pod) => pod.metadata?.ownerReferences?.some((ref) => ref.uid === owner.metadata?.uid));
  assert.ok(child, 'the child pod was created by the operator');
  await deleteObject(cluster.client, builtins.Pods, { namespace: 'default', name: child.metadata!.name! });
  await deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'kex-rbac' });
  await operator.waitFor('[default/kex-rbac] Deleted, really deleted', { timeout: 60_000 });
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
  // A refusal says 'Forbidden' (the status's reason); a bare 403 could be part of a uid or a version.
  assert.doesNotMatch(exit.output, /forbidden/i, 'nothing was refused');
});

test('a reconciler bound to exactly the printed RBAC keeps its children and watches its related objects', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(import.meta.dirname, 'fixtures', 'reconciling.ts');
  await applyRbac(['-n', 'default', '--service-account', 'reconciling', file]);
  const kubeconfigPath = kubeconfigOfServiceAccount(dir, 'default', 'reconciling');
  const operator = runOperator({ files: [file], args: ['-n', 'default', '--standalone', '--verbose'], kubeconfigPath });
  t.after(() => operator.stop());
  await operator.waitFor(/Starting the watch-stream for secrets\.v1 in 'default'/, { timeout: 60_000 });
  const ref = { namespace: 'default', name: 'kex-reconciled' };
  await createObject(cluster.client, KopfExample, { metadata: ref, spec: { field: 'value' } });
  t.after(() => deleteObject(cluster.client, KopfExample, ref).catch(() => undefined));
  const child = { namespace: 'default', name: 'kex-reconciled-kept' };
  await waitForObject(cluster.client, builtins.ConfigMaps, child, (o) => o !== null, { timeout: 60_000 });
  // The owned child deleted by hand comes back: its deletion was watched, and the owner reconciled.
  await deleteObject(cluster.client, builtins.ConfigMaps, child);
  await waitForObject(cluster.client, builtins.ConfigMaps, child, (o) => o !== null, { timeout: 60_000 });
  // A secret that names the object: listed and watched as metadata, with the printed permissions.
  const since = operator.lines.length;
  const secret = { name: 'kex-reconciled-secret', namespace: 'default', labels: { 'kopf.dev/widget': ref.name } };
  await createObject(cluster.client, builtins.Secrets, { metadata: secret });
  t.after(() => deleteObject(cluster.client, builtins.Secrets, secret).catch(() => undefined));
  await operator.waitFor('[default/kex-reconciled] Kept the child of kex-reconciled.', { timeout: 60_000, since });
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
  assert.doesNotMatch(exit.output, /forbidden/i, 'nothing was refused');
});

test('a handler that needs one verb more than declared fails with a 403 naming the verb and the resource', async (
  t
) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(import.meta.dirname, 'fixtures', 'undeclared.ts');
  const printed = await applyRbac(['-A', '--service-account', 'undeclared', file]);
  assert.deepEqual(printed.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
  const operator = runOperator(
    {
      files: [file],
      args: ['-A', '--standalone', '--verbose'],
      kubeconfigPath: kubeconfigOfServiceAccount(dir, 'default', 'undeclared'),
    }
  );
  t.after(() => operator.stop());
  await operator.waitFor(/Starting the watch-stream for kopfexamples\.v1\.kopf\.dev/, { timeout: 60_000 });
  await createObject(cluster.client, KopfExample, { metadata: { name: 'kex-undeclared', namespace: 'default' } });
  t.after(
    () => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'kex-undeclared' }).catch(
      () => undefined
    )
  );
  const line = await operator.waitFor(
    /Handler 'create_fn' failed with an exception and will stop now/,
    { timeout: 60_000 },
  );
  assert.match(line, /403 Forbidden/);
  assert.match(line, /the operator is not allowed to 'delete' configmaps in the core API group/);
  assert.match(line, /cannot delete resource "configmaps"/, "the API server's own words");
});

test('an operator whose RBAC does not let it watch its resource stops with the 403 in one line, not a trace', async (
  t
) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(import.meta.dirname, 'fixtures', 'undeclared.ts');
  // A service account that nothing is granted to: `kopf rbac` was never applied for it.
  const kubeconfigPath = kubeconfigOfServiceAccount(dir, 'default', 'ungranted');
  const operator = runOperator({ files: [file], args: ['-n', 'default', '--standalone'], kubeconfigPath });
  t.after(() => operator.stop());
  const exit = await operator.exited;
  assert.equal(exit.exitCode, 1, exit.output);
  assert.match(exit.output, /The operator has failed: .*403 Forbidden/);
  assert.match(exit.output, /the operator is not allowed to 'list' kopfexamples in the API group 'kopf\.dev'/);
  assert.doesNotMatch(exit.output, /^\s+at /m, 'a missing grant is the user\'s to fix: its message, not our frames');
});

test('an operator of managed admission webhooks (examples/17-admission), bound to the printed RBAC, writes its ' +
  'configurations', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const example = join(EXAMPLES, '17-admission', 'example.ts');
  const printed = await applyRbac(['-n', 'default', '--standalone', '--service-account', 'admission', example]);
  // The configurations are cluster-scoped: a ClusterRole for them only, a Role for the rest.
  assert.deepEqual(
    printed.map((o) => o.kind),
    ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  );
  const kubeconfigPath = kubeconfigOfServiceAccount(dir, 'default', 'admission');
  const operator = runOperator(
    { files: [example], args: ['-n', 'default', '--standalone', '--verbose'], kubeconfigPath }
  );
  t.after(async () => {
    await operator.stop();
    for (const kind of Object.values(CONFIGURATIONS)) {
      await deleteObject(cluster.client, kind, { name: 'auto.kopf.dev' }).catch(() => undefined);
    }
  });
  // Created at start, then patched with one webhook per handler of its kind.
  for (const kind of Object.values(CONFIGURATIONS)) {
    const written = (o: WebhookConfiguration | null) => Boolean(o?.webhooks?.length);
    await waitForObject(cluster.client, kind, { namespace: null, name: 'auto.kopf.dev' }, written, { timeout: 60_000 });
  }
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
  assert.doesNotMatch(exit.output, /Forbidden|Not enough RBAC permissions/, 'nothing was refused');
  assert.match(
    exit.output,
    /Cleaning up the validating webhook auto\.kopf\.dev\./,
    'the clean-up on exit is a patch too',
  );
});
