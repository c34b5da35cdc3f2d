/**
 * The engine end to end, embedded in the test's own process (`operator()`), on a real control
 * plane: the Kopf lifecycle of one object — finalizer, create handler, result in status, progress
 * purged, diff-base stored, update, deletion through the delete handler — and two operators with
 * separate registries in one process; a result that the schema prunes is reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, deleteObject, getObject, patchObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { WARNING } from '../../../runtime/logging/index.ts';
import { STOP_ANNOUNCED } from '../../../runtime/operator/operator.ts';
import type { ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { useCluster } from '../use-cluster.ts';
import { about, startOperator, withOperator } from './support.ts';

const cluster = useCluster();

test('create, update and delete go through the handlers once each, with Kopf\'s records on the object', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(
    KopfExample,
    async function create_fn({ spec }) { calls.push(`create:${spec.field}`); return { message: 'created' }; },
  );
  registry.on.update(KopfExample, async function update_fn({ diff }) { calls.push(`update:${JSON.stringify(diff)}`); });
  registry.on.delete(KopfExample, async function delete_fn() { calls.push('delete'); });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { name: 'e1', namespace: 'default' }, spec: { field: 'a' } },
    );
    await capture.waitFor("Creation is processed: 1 succeeded; 0 failed.", { timeout: 30 });
    await capture.waitFor('Handling cycle is finished, waiting for new changes.', { timeout: 30 }); // after the patch
    const obj = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'e1' });
    assert.deepEqual(obj.metadata?.finalizers, ['kopf.zalando.org/KopfFinalizerMarker']);
    assert.deepEqual(obj.status?.create_fn, { message: 'created' });
    assert.equal(
      obj.metadata?.annotations?.['kopf.zalando.org/last-handled-configuration'],
      '{"spec":{"field":"a"}}\n',
    );
    assert.equal(obj.metadata?.annotations?.['kopf.zalando.org/create_fn'], undefined, 'progress is purged when done');

    await patchObject(cluster.client, KopfExample, { namespace: 'default', name: 'e1' }, { spec: { field: 'b' } });
    await capture.waitFor("Updating is processed: 1 succeeded; 0 failed.", { timeout: 30 });

    await deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'e1' });
    await capture.waitFor('Deleted, really deleted, and we are notified.', { timeout: 30 });
    assert.deepEqual(calls, ['create:a', 'update:[["change",["spec","field"],"a","b"]]', 'delete']);
    assert.ok(capture.messages().includes('Adding the finalizer, thus preventing the actual deletion.'));
    assert.ok(capture.messages().includes('Removing the finalizer, thus allowing the actual deletion.'));
  });
});

test('a temporary error is retried after its delay, and its progress is on the object meanwhile', async (t) => {
  t.after(() => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'e2' }).catch(() => undefined));
  let attempts = 0;
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function flaky() {
    attempts++;
    if (attempts < 2) throw new TemporaryError('not yet', { delay: 1 });
  });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e2', namespace: 'default' }, spec: {} });
    await capture.waitFor("Handler 'flaky' failed temporarily: not yet", { timeout: 30 });
    await capture.waitFor("Creation is processed: 1 succeeded; 0 failed.", { timeout: 30 });
    assert.equal(attempts, 2);
  });
});

test('a sleep for a delayed handler is cut short by a new change, as Kopf says', async (t) => {
  t.after(() => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'e8' }).catch(() => undefined));
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function slow() { throw new TemporaryError('later', { delay: 60 }); });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e8', namespace: 'default' }, spec: {} });
    await capture.waitFor(about('e8', /^Sleeping for [\d.]+ seconds for the delayed handlers\.$/), { timeout: 30 });
    await patchObject(
      cluster.client,
      KopfExample,
      { namespace: 'default', name: 'e8' },
      { spec: { field: 'changed' } },
    );
    const interrupted = await capture.waitFor(
      about('e8', /^Sleeping was interrupted by new changes, /), { timeout: 30 },
    );
    const left = Number(/, ([\d.]+) seconds left\.$/.exec(interrupted.message)?.[1]);
    assert.ok(left > 30 && left < 60, interrupted.message);
  });
});

test('the deletion of an object without our finalizer is noted and left alone', async (t) => {
  const ref = { namespace: 'default', name: 'e9' };
  t.after(
    () => patchObject(cluster.client, KopfExample, ref, { metadata: { finalizers: null } }).catch(() => undefined)
  );
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn() { calls.push('create'); });
  registry.on.delete(KopfExample, async function delete_fn() { calls.push('delete'); }, { optional: true });
  await withOperator(cluster, registry, async ({ capture }) => {
    // Another party's finalizer keeps the object while it is being deleted.
    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { ...ref, finalizers: ['example.com/other'] }, spec: {} },
    );
    await capture.waitFor(about('e9', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    await deleteObject(cluster.client, KopfExample, ref);
    await capture.waitFor(about('e9', 'Deletion, but we are done with it, and we do not care.'), { timeout: 30 });
    assert.deepEqual(calls, ['create']);
  });
});

test('execute() runs sub-handlers in place, each once, under the parent\'s id', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function parent({ execute }) {
    calls.push('parent');
    await execute({ a: async () => { calls.push('a'); }, b: async () => { calls.push('b'); return { done: true }; } });
    return { all: 'done' };
  });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e3', namespace: 'default' }, spec: {} });
    await capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 30 });
    await capture.waitFor('Handling cycle is finished, waiting for new changes.', { timeout: 30 });
    assert.deepEqual(calls.filter((c) => c !== 'parent'), ['a', 'b']);
    assert.ok(capture.messages().includes("Handler 'parent/a' succeeded."));
    assert.ok(capture.messages().includes("Handler 'parent/b' succeeded."));
    const obj = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'e3' });
    assert.deepEqual(obj.status?.['parent/b'], { done: true });
    assert.deepEqual(obj.status?.parent, { all: 'done' });
    const leftovers = Object.keys(obj.metadata?.annotations ?? {}).filter(
      (k) => k.startsWith('kopf.zalando.org/') && !k.endsWith('last-handled-configuration')
    );
    assert.deepEqual(leftovers, [], 'the parent\'s and the children\'s progress is purged');
  });
});

test('patch transformations (patch.fns) are applied as a JSON patch against the fresh body', async () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function transform({ patch }) {
    patch.fns.push(
      (body) => { body.metadata ??= {}; body.metadata.labels = { ...body.metadata.labels, transformed: 'yes' }; }
    );
  });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { name: 'e4', namespace: 'default', labels: { kept: 'too' } }, spec: {} },
    );
    await capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 30 });
    await capture.waitFor(about('e4', /^JSON-patching the resource with:/), { timeout: 30 });
    await capture.waitFor(about('e4', 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
    const obj = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'e4' });
    assert.deepEqual(obj.metadata?.labels, { kept: 'too', transformed: 'yes' });
  });
});

test('an embedded operator stopped by its application says so as Kopf does, once; a stop whose reason was announced ' +
  'is not said again', async () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function quiet() {});
  const first = startOperator(cluster, registry);
  await first.op.ready;
  await Promise.all([first.op.stop(), first.op.stop()]);
  assert.deepEqual(
    first.capture.messages().filter((m) => m.startsWith('Stop-flag')),
    ['Stop-flag is raised. Operator is stopping.'],
  );

  const application = new AbortController();
  const second = startOperator(cluster, registry, { signal: application.signal });
  await second.op.ready;
  application.abort(STOP_ANNOUNCED);
  await second.op.done;
  assert.ok(!second.capture.messages().some((m) => m.startsWith('Stop-flag')), second.capture.messages().join('\n'));
});

test('a resource named by a string is resolved by discovery (a short name here) and served', async () => {
  const seen: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(
    'kex',
    async function by_name({ name, resource }) {
      seen.push(`${name} ${resource.plural}.${resource.group}/${resource.version}`);
    },
  );
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e5', namespace: 'default' }, spec: {} });
    await capture.waitFor(about('e5', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(seen, ['e5 kopfexamples.kopf.dev/v1']);
  });
});

test('a name that nothing serves is reported, and the operator serves the rest', async () => {
  const registry = new OperatorRegistry();
  registry.on.create('nosuchthings', async function never() {});
  registry.on.create(KopfExample, async function served() {});
  await withOperator(cluster, registry, async ({ capture }) => {
    assert.ok(
      capture.messages().some(
        (m) => m.startsWith("Unresolved resources cannot be served (try creating their CRDs): 'nosuchthings'")
      ),
      capture.messages().join('\n'),
    );
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e6', namespace: 'default' }, spec: {} });
    await capture.waitFor(about('e6', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
  });
});

test('a resource that cannot be watched (componentstatuses: get and list only) is reported and not ' +
  'served', async () => {
  const registry = new OperatorRegistry();
  registry.on.event('componentstatuses', async function never() {});
  registry.on.create(KopfExample, async function served() {});
  await withOperator(cluster, registry, async ({ capture }) => {
    assert.ok(
      capture.messages().includes(
        "Non-watchable resources will not be served: 'componentstatuses' (it cannot be watched)."
      ),
      capture.messages().join('\n'),
    );
    await createObject(cluster.client, KopfExample, { metadata: { name: 'e7', namespace: 'default' }, spec: {} });
    await capture.waitFor(about('e7', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.ok(
      !capture.messages().some((m) => m.includes('watch-stream for componentstatuses')),
      capture.messages().join('\n'),
    );
  });
});

/** A KopfExample-like resource whose status schema declares some fields only: the API server prunes the rest. */
const PrunedExample: ResourceDescriptor = {
  group: 'kopf.dev',
  version: 'v1',
  plural: 'prunedexamples',
  kind: 'PrunedExample',
  scope: 'Namespaced',
  subresources: ['status'],
};
const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const PRUNING_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'prunedexamples.kopf.dev' },
  spec: {
    group: 'kopf.dev',
    scope: 'Namespaced',
    names: { kind: 'PrunedExample', plural: 'prunedexamples', singular: 'prunedexample' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: { spec: OPEN, status: { type: 'object', properties: { kopf: OPEN, kept_fn: OPEN } } },
        }
      },
    }],
  },
};

test('a handler result that the schema prunes from the status is reported as Kopf reports it; a declared one is ' +
  'kept silently', async () => {
  await cluster.cp.installCrds([PRUNING_CRD]);
  const registry = new OperatorRegistry();
  registry.on.create(PrunedExample, async function kept_fn() { return { message: 'kept' }; });
  registry.on.create(PrunedExample, async function pruned_fn() { return { message: 'lost' }; });
  await withOperator(cluster, registry, async ({ capture }) => {
    await createObject(cluster.client, PrunedExample, { metadata: { name: 'p1', namespace: 'default' } });
    await capture.waitFor(about('p1', 'Creation is processed: 2 succeeded; 0 failed.'), { timeout: 30 });
    await capture.waitFor(about('p1', 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
    const warnings = capture.records.filter(
      (r) => r.message.startsWith('Merge-patching finished with inconsistencies')
    );
    assert.deepEqual(warnings.map((r) => [r.ref?.name, r.level, r.message]), [
      [
        'p1',
        WARNING,
        'Merge-patching finished with inconsistencies: [["remove",["status","pruned_fn"],{"message":"lost"},null]]',
      ],
    ]);
    const obj = await getObject(cluster.client, PrunedExample, { namespace: 'default', name: 'p1' });
    assert.deepEqual(
      obj.status,
      { kept_fn: { message: 'kept' } },
      'the API server pruned the undeclared result, and only it',
    );
  });
});
