/**
 * The client handlers get (`client` in their context) on a real API server: typed calls on
 * built-in kinds and custom resources, its typed errors, and a create handler that adopts a child
 * and creates it through the operator's own client.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AlreadyExistsError,
  AuthorizationError,
  ConflictError,
  ForbiddenError,
  KubeClient,
  NotFoundError,
  OperatorRegistry,
  adopt,
  builtins,
  type ResourceClient,
} from '../../../runtime/index.ts';
import { resourceClientOf } from '../../../runtime/kube/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from './support.ts';

const NS = 'default';
const cluster = useCluster();
const clientOf = (): ResourceClient => resourceClientOf(cluster.client);

test('typed calls on a built-in kind: create, get, list by labels, merge/JSON/apply patches, delete', async () => {
  const client = clientOf();
  const created = await client.create(
    builtins.ConfigMaps,
    { metadata: { name: 'cm-typed', namespace: NS, labels: { app: 'typed' } }, data: { a: '1' } },
  );
  assert.equal(created.kind, 'ConfigMap');
  assert.equal(typeof created.metadata?.creationTimestamp, 'string', 'date-times stay strings, as typed');
  assert.deepEqual((await client.get(builtins.ConfigMaps, 'cm-typed', { namespace: NS })).data, { a: '1' });
  const listed = await client.list(builtins.ConfigMaps, { namespace: NS, labelSelector: 'app=typed' });
  assert.deepEqual(listed.items.map((cm) => cm.metadata?.name), ['cm-typed']);
  assert.ok(listed.resourceVersion);

  const merged = await client.patch(builtins.ConfigMaps, 'cm-typed', { data: { a: null, b: '2' } }, { namespace: NS });
  assert.deepEqual(merged.data, { b: '2' });
  const jsonPatched = await client.patch(
    builtins.ConfigMaps,
    'cm-typed',
    [{ op: 'add', path: '/data/c', value: '3' }],
    { namespace: NS, type: 'json' },
  );
  assert.deepEqual(jsonPatched.data, { b: '2', c: '3' });
  const applied = await client.patch(
    builtins.ConfigMaps,
    'cm-typed',
    { data: { d: '4' } },
    { namespace: NS, type: 'apply' },
  );
  assert.equal(applied.data?.d, '4');
  assert.ok(
    applied.metadata?.managedFields?.some((m) => m.manager === 'kopf' && m.operation === 'Apply'),
    'the default field manager',
  );

  await client.delete(builtins.ConfigMaps, 'cm-typed', { namespace: NS });
  const gone = await client.get(builtins.ConfigMaps, 'cm-typed', { namespace: NS }).catch((e: unknown) => e);
  assert.ok(gone instanceof NotFoundError, String(gone));
});

test('status writes go through the status subresource, typed by the resource', async () => {
  const client = clientOf();
  await client.create(KopfExample, { metadata: { name: 'kex-status', namespace: NS }, spec: { field: 'x' } });
  const written = await client.patchStatus(KopfExample, 'kex-status', { child: { name: 'c1' } }, { namespace: NS });
  assert.deepEqual(written.status, { child: { name: 'c1' } });
  await client.delete(KopfExample, 'kex-status', { namespace: NS });
});

test('typed errors: already exists, conflict, and forbidden naming the verb and the resource', async () => {
  const client = clientOf();
  const object = { metadata: { name: 'cm-errors', namespace: NS } };
  const created = await client.create(builtins.ConfigMaps, object);
  const again = await client.create(builtins.ConfigMaps, object).catch((e: unknown) => e);
  assert.ok(again instanceof AlreadyExistsError, String(again));
  await client.patch(builtins.ConfigMaps, 'cm-errors', { data: { moved: 'on' } }, { namespace: NS });
  const stale = await client.replace(builtins.ConfigMaps, { ...created, data: { stale: 'write' } }).catch(
    (e: unknown) => e
  );
  assert.ok(stale instanceof ConflictError, String(stale));

  const outsider = KubeClient.fromKubeConfig(cluster.cp.kubeconfigFor('outsider'));
  try {
    const refused = await resourceClientOf(outsider).delete(builtins.ConfigMaps, 'cm-errors', { namespace: NS }).catch(
      (e: unknown) => e
    );
    assert.ok(refused instanceof AuthorizationError, String(refused));
    assert.ok(refused instanceof ForbiddenError, 'an authorization denial is a ForbiddenError too');
    assert.equal(refused.verb, 'delete');
    assert.equal(refused.resource, 'configmaps');
    assert.match(refused.message, /not allowed to 'delete' configmaps in the core API group/);
  } finally {
    outsider.close();
  }
  await client.delete(builtins.ConfigMaps, 'cm-errors', { namespace: NS });
});

test('a refusal by an admission check (a namespace being deleted) is a ForbiddenError that does not blame the ' +
  'RBAC', async () => {
  const client = clientOf();
  // Without a controller-manager, nothing finalizes the namespace: it stays terminating.
  await client.create(builtins.Namespaces, { metadata: { name: 'kopf-terminating' } });
  await client.delete(builtins.Namespaces, 'kopf-terminating');
  const object = { metadata: { name: 'cm-late', namespace: 'kopf-terminating' } };
  const refused = await client.create(builtins.ConfigMaps, object).catch((e: unknown) => e);
  assert.ok(refused instanceof ForbiddenError, String(refused));
  assert.ok(!(refused instanceof AuthorizationError), `not an authorization denial: ${refused.message}`);
  assert.equal(refused.verb, 'create');
  assert.equal(refused.resource, 'configmaps');
  assert.match(refused.message, /because it is being terminated/);
  assert.match(refused.message, /not by the RBAC: more permissions would not help/);
  assert.doesNotMatch(refused.message, /grant it/);
});

test('a handler adopts a child and creates it with the client in its context', async () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn({ body, spec, client }) {
    const child = adopt({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${body.metadata?.name}-data` },
      data: { field: spec.field ?? '' },
    }, body);
    const stored = await client.create(builtins.ConfigMaps, child);
    return { child: stored.metadata?.name };
  });
  const client = clientOf();
  await withOperator(cluster, registry, async ({ capture }) => {
    const owner = await client.create(
      KopfExample,
      { metadata: { name: 'kex-parent', namespace: NS, labels: { team: 'a' } }, spec: { field: 'value' } },
    );
    await capture.waitFor(/Handler 'create_fn' succeeded/);
    const child = await client.get(builtins.ConfigMaps, 'kex-parent-data', { namespace: NS });
    assert.deepEqual(child.data, { field: 'value' });
    assert.deepEqual(child.metadata?.labels, { team: 'a' });
    assert.deepEqual(child.metadata?.ownerReferences, [{
      apiVersion: 'kopf.dev/v1',
      kind: 'KopfExample',
      name: 'kex-parent',
      uid: owner.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    }]);
    await client.delete(KopfExample, 'kex-parent', { namespace: NS });
    await client.delete(builtins.ConfigMaps, 'kex-parent-data', { namespace: NS }); // no garbage collector here
  });
});

test('startup and cleanup handlers have the client too; a startup handler\'s call connects it', async () => {
  const registry = new OperatorRegistry();
  const seen: string[] = [];
  registry.on.startup(async function startup_fn({ client }) {
    seen.push(...(await client.list(builtins.Namespaces)).items.map((ns) => `startup:${ns.metadata?.name}`));
  });
  registry.on.cleanup(async function cleanup_fn({ client }) {
    seen.push(`cleanup:${(await client.get(builtins.Namespaces, 'default')).metadata?.name}`);
  });
  await withOperator(cluster, registry, async () => {
    assert.ok(seen.includes('startup:default'), JSON.stringify(seen));
  });
  assert.equal(seen.at(-1), 'cleanup:default');
});
