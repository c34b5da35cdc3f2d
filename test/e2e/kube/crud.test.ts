/**
 * Reading and writing objects on a real API server: a custom resource with a status subresource
 * (KopfExample) and a built-in kind (ConfigMap), through every patch flavour.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApiError,
  createObject,
  deleteObject,
  getObject,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  patchObject,
  replaceObject,
} from '../../../runtime/kube/index.ts';
import { ConfigMaps } from '../../../runtime/structs/builtins.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const NS = 'crud';

const cluster = useCluster({ namespace: NS });

test('a custom resource: create, get, merge patch, status subresource, replace, delete', async () => {
  const ref = { namespace: NS, name: 'kex-1' };
  const created = await createObject(
    cluster.client,
    KopfExample,
    { metadata: { name: 'kex-1', namespace: NS, labels: { a: '1' } }, spec: { field: 'value', items: ['x'] } },
  );
  assert.equal(created.apiVersion, 'kopf.dev/v1');
  assert.equal(created.kind, 'KopfExample');
  assert.ok(created.metadata?.uid);
  assert.deepEqual(created.spec, { field: 'value', items: ['x'] });

  const again = await createObject(cluster.client, KopfExample, { metadata: { name: 'kex-1', namespace: NS } }).catch(
    (e: unknown) => e
  );
  assert.ok(isAlreadyExists(again), String(again));

  const patched = await patchObject(
    cluster.client,
    KopfExample,
    ref,
    { metadata: { labels: { a: null, b: '2' } }, spec: { field: 'changed' } },
  );
  assert.deepEqual(patched.metadata?.labels, { b: '2' });
  assert.equal(patched.spec?.field, 'changed');

  // The main resource ignores status; the status subresource ignores everything else.
  const ignored = await patchObject(cluster.client, KopfExample, ref, { status: { ignored: true } });
  assert.equal(ignored.status, undefined);
  const withStatus = await patchObject(
    cluster.client,
    KopfExample,
    ref,
    { status: { create_fn: { message: 'hello' } }, spec: { field: 'ignored' } },
    { subresource: 'status' },
  );
  assert.deepEqual(withStatus.status, { create_fn: { message: 'hello' } });
  assert.equal(withStatus.spec?.field, 'changed');
  assert.deepEqual(
    (await getObject(cluster.client, KopfExample, ref, { subresource: 'status' })).status,
    { create_fn: { message: 'hello' } },
  );

  const stale = { ...created, spec: { field: 'stale write' } };
  const conflict = await replaceObject(cluster.client, KopfExample, stale).catch((e: unknown) => e);
  assert.ok(isConflict(conflict), String(conflict));
  const fresh = await getObject(cluster.client, KopfExample, ref);
  const replaced = await replaceObject(cluster.client, KopfExample, { ...fresh, spec: { field: 'replaced' } });
  assert.deepEqual(replaced.spec, { field: 'replaced' });
  assert.deepEqual(
    replaced.status,
    { create_fn: { message: 'hello' } },
    'status survives a replace of the main resource',
  );

  const wrongUid = await deleteObject(
    cluster.client,
    KopfExample,
    ref,
    { preconditions: { uid: 'not-the-uid' } },
  ).catch((e: unknown) => e);
  assert.ok(isConflict(wrongUid), String(wrongUid));
  await deleteObject(
    cluster.client,
    KopfExample,
    ref,
    { preconditions: { uid: created.metadata?.uid }, propagationPolicy: 'Background' },
  );
  const gone = await getObject(cluster.client, KopfExample, ref).catch((e: unknown) => e);
  assert.ok(isNotFound(gone), String(gone));
  assert.ok(gone instanceof ApiError);
  assert.equal(gone.reason, 'NotFound');
  assert.equal(gone.details?.name, 'kex-1');
});

test('JSON patch with a test precondition: applied when it holds, 422 when it does not', async () => {
  const ref = { namespace: NS, name: 'kex-json' };
  await createObject(
    cluster.client,
    KopfExample,
    { metadata: { name: 'kex-json', namespace: NS, finalizers: ['example.com/f1', 'example.com/f2'] } },
  );
  const removed = await patchObject(cluster.client, KopfExample, ref, [
    { op: 'test', path: '/metadata/finalizers/1', value: 'example.com/f2' },
    { op: 'remove', path: '/metadata/finalizers/1' },
  ], { type: 'json' });
  assert.deepEqual(removed.metadata?.finalizers, ['example.com/f1']);
  const failed = await patchObject(cluster.client, KopfExample, ref, [
    { op: 'test', path: '/metadata/finalizers/0', value: 'someone-else' },
    { op: 'remove', path: '/metadata/finalizers/0' },
  ], { type: 'json' }).catch((e: unknown) => e);
  assert.ok(isInvalid(failed), String(failed));
  await patchObject(cluster.client, KopfExample, ref, { metadata: { finalizers: null } });
  await deleteObject(cluster.client, KopfExample, ref);
});

test('server-side apply: owned fields, conflicts between managers, force', async () => {
  const ref = { namespace: NS, name: 'kex-ssa' };
  const applied = await patchObject(
    cluster.client,
    KopfExample,
    { ...ref },
    { metadata: { namespace: NS }, spec: { field: 'mine' } },
    { type: 'apply', fieldManager: 'first' },
  );
  assert.equal(applied.spec?.field, 'mine');
  assert.ok(applied.metadata?.managedFields?.some((m) => m.manager === 'first' && m.operation === 'Apply'));

  const conflict = await patchObject(
    cluster.client,
    KopfExample,
    ref,
    { spec: { field: 'theirs' } },
    { type: 'apply', fieldManager: 'second' },
  ).catch((e: unknown) => e);
  assert.ok(isConflict(conflict), String(conflict));
  assert.match((conflict as ApiError).message, /conflict/i);

  const forced = await patchObject(
    cluster.client,
    KopfExample,
    ref,
    { spec: { field: 'theirs' } },
    { type: 'apply', fieldManager: 'second', force: true },
  );
  assert.equal(forced.spec?.field, 'theirs');

  const status = await patchObject(
    cluster.client,
    KopfExample,
    ref,
    { status: { applied: 'yes' } },
    { type: 'apply', fieldManager: 'first', subresource: 'status' },
  );
  assert.deepEqual(status.status, { applied: 'yes' });
  await deleteObject(cluster.client, KopfExample, ref);
});

test('a built-in kind: ConfigMap with strategic merge, dry runs, and deletion', async () => {
  const ref = { namespace: NS, name: 'cm-1' };
  const dry = await createObject(
    cluster.client,
    ConfigMaps,
    { metadata: { name: 'cm-1' }, data: { a: '1' } },
    { namespace: NS, dryRun: true },
  );
  assert.equal(dry.metadata?.name, 'cm-1');
  assert.ok(
    isNotFound(await getObject(cluster.client, ConfigMaps, ref).catch((e: unknown) => e)),
    'a dry run persists nothing',
  );

  await createObject(
    cluster.client,
    ConfigMaps,
    { metadata: { name: 'cm-1' }, data: { a: '1' } },
    { namespace: NS, fieldManager: 'kopf-test' },
  );
  const merged = await patchObject(cluster.client, ConfigMaps, ref, { data: { b: '2' } }, { type: 'strategic' });
  assert.deepEqual(merged.data, { a: '1', b: '2' });
  const unsupported = await patchObject(
    cluster.client,
    KopfExample,
    { namespace: NS, name: 'whatever' },
    { spec: {} },
    { type: 'strategic' },
  ).catch((e: unknown) => e);
  assert.ok(
    unsupported instanceof ApiError && unsupported.status === 415,
    `custom resources refuse strategic merge: ${String(unsupported)}`,
  );

  const deleted = await deleteObject(cluster.client, ConfigMaps, ref, { gracePeriodSeconds: 0 });
  assert.ok(deleted);
  assert.ok(isNotFound(await getObject(cluster.client, ConfigMaps, ref).catch((e: unknown) => e)));
  const counts = cluster.client.requestCounts();
  assert.ok((counts.patch ?? 0) >= 1 && (counts.create ?? 0) >= 1 && (counts.delete ?? 0) >= 1, JSON.stringify(counts));
});
