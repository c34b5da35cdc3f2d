/**
 * Restarts and scope, embedded on a real control plane: an operator restarted over an object it
 * handled resumes it (resume handlers only, no re-creation, no writes), an object changed while
 * it was down gets one update cycle with the resume handlers mixed in, namespace globs serve
 * namespaces that appear after the start, a resource whose CRD is missing is waited for, one
 * named by a string is served once its CRD is created and follows its name to another group, and
 * an operator with no resource handlers says so; a restart with nothing changed queues none of the
 * objects whose stored state says all is done (read as the watch's initial events when streamed
 * listings are on: no LIST),
 * and one changed meanwhile still goes the whole way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, deleteObject, getObject, patchObject } from '../../../runtime/kube/index.ts';
import { CustomResourceDefinitions, Namespaces } from '../../../runtime/structs/builtins.ts';
import type { ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { about, withOperator } from './support.ts';
import { scrape, value } from '../metrics/exposition.ts';
import { delta, requestCounts } from '../metrics.ts';

const cluster = useCluster();

function registryWith(calls: string[]): OperatorRegistry {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn() { calls.push('create'); });
  registry.on.update(KopfExample, async function update_fn({ reason }) { calls.push(`update:${reason}`); });
  registry.on.resume(KopfExample, async function resume_fn({ reason }) { calls.push(`resume:${reason}`); });
  return registry;
}

test('a restarted operator resumes what it handled, and updates what changed while it was down', async () => {
  const calls: string[] = [];
  await withOperator(cluster, registryWith(calls), async ({ capture }) => {
    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { name: 'r1', namespace: 'default' }, spec: { field: 'a' } },
    );
    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { name: 'r2', namespace: 'default' }, spec: { field: 'a' } },
    );
    await capture.waitFor(about('r1', 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
    await capture.waitFor(about('r2', 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
  });
  assert.deepEqual(calls, ['create', 'create']);

  calls.length = 0;
  await patchObject(cluster.client, KopfExample, { namespace: 'default', name: 'r2' }, { spec: { field: 'b' } });
  const r1Before = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'r1' });
  await withOperator(cluster, registryWith(calls), async ({ capture }) => {
    await capture.waitFor(about('r1', 'Resuming is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    await capture.waitFor(about('r2', 'Updating is processed: 2 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(calls.sort(), ['resume:resume', 'resume:update', 'update:update']);
    const r1After = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'r1' });
    assert.equal(
      r1After.metadata?.resourceVersion,
      r1Before.metadata?.resourceVersion,
      'resuming an unchanged object writes nothing',
    );
  });
});

test('a restart queues no object whose stored state says all is done; a changed one goes the whole way', async () => {
  const ns = 'settled-restart';
  await createObject(cluster.client, Namespaces, { metadata: { name: ns } });
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn() { calls.push('create'); });
  registry.on.delete(KopfExample, async function delete_fn() { calls.push('delete'); });
  const names = ['s1', 's2', 's3', 's4'];
  await withOperator(cluster, registry, { namespaces: [ns] }, async ({ capture }) => {
    for (const name of names) {
      await createObject(cluster.client, KopfExample, { metadata: { name, namespace: ns }, spec: { field: 'a' } });
    }
    for (const name of names) {
      await capture.waitFor(about(name, 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
    }
  });
  assert.deepEqual(calls, ['create', 'create', 'create', 'create']);

  await patchObject(cluster.client, KopfExample, { namespace: ns, name: 's4' }, { spec: { field: 'b' } });
  const settings = defaultSettings({ posting: { enabled: false }, watching: { streamingLists: true } });
  const options = { namespaces: [ns], metrics: 'http://127.0.0.1:0/metrics', settings };
  const requestsBefore = await requestCounts(cluster.cp.credentials, 'kopfexamples');
  await withOperator(cluster, registry, options, async ({ op, capture }) => {
    // Said by the settled objects as by the changed one's update cycle, in verbose logs alike.
    for (const name of names) {
      await capture.waitFor(about(name, 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });
    }
    const s4 = await getObject(cluster.client, KopfExample, { namespace: ns, name: 's4' });
    assert.match(s4.metadata?.annotations?.['kopf.zalando.org/last-handled-configuration'] ?? '', /"field":"b"/);
    // A cycle is a queued event: the changed object's update, perhaps its echo; none for the others.
    const cycles = value(await scrape(op.metricsUrl!), 'kopf_queue_wait_seconds_count', {
      resource: 'kopfexamples.v1.kopf.dev',
    });
    assert.ok(cycles !== undefined && cycles >= 1 && cycles <= 2, `cycles: ${cycles}`);
    // With streamed listings on, the objects came as the watch's initial events, not from a LIST.
    const lists = delta(requestsBefore, await requestCounts(cluster.cp.credentials, 'kopfexamples'), ['LIST']);
    assert.equal(lists.total, 0, 'no LIST of the served resource');
  });
  assert.deepEqual(calls, ['create', 'create', 'create', 'create'], 'no handler ran again');
});

test('namespace globs serve matching namespaces that appear after the start, and no others', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn({ namespace }) { calls.push(namespace ?? ''); });
  await withOperator(cluster, registry, { namespaces: ['team-*,!team-skip'] }, async ({ capture }) => {
    for (const ns of ['team-a', 'team-skip', 'other'])
      await createObject(cluster.client, Namespaces, { metadata: { name: ns } });
    // Whether a namespace's watch starts before or after its object exists, its listing sees it.
    for (const ns of ['team-a', 'team-skip', 'other'])
      await createObject(cluster.client, KopfExample, { metadata: { name: 'g1', namespace: ns }, spec: {} });
    await capture.waitFor(
      (r) => r.ref?.namespace === 'team-a' && r.message === 'Creation is processed: 1 succeeded; 0 failed.',
      { timeout: 30 },
    );
    // One more object in a served namespace, created last: once it is handled, the others had their chance.
    await createObject(cluster.client, KopfExample, { metadata: { name: 'g2', namespace: 'team-a' }, spec: {} });
    await capture.waitFor(about('g2', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(calls, ['team-a', 'team-a']);
  });
});

const Gizmos: ResourceDescriptor = {
  group: 'served.kopf.dev',
  version: 'v1',
  plural: 'gizmos',
  kind: 'Gizmo',
  scope: 'Namespaced',
};
const GIZMO_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.served.kopf.dev' },
  spec: {
    group: 'served.kopf.dev', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      }
    ],
  },
};

test('a resource whose CRD is missing is waited for, served once the CRD is there, and waited for again when it ' +
  'goes', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(Gizmos, async function create_fn({ name }) { calls.push(name); });
  const settings = defaultSettings({ posting: { enabled: false }, networking: { errorBackoffs: [0.2] } });
  const missing =
    "The resource gizmos.v1.served.kopf.dev in 'default' is not served (404): waiting until it is. Was its CRD " +
      "deleted, or not created yet?";
  await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    await capture.waitFor((r) => r.message === missing, { timeout: 30 });
    await cluster.cp.installCrds([GIZMO_CRD]);
    await createObject(
      cluster.client,
      Gizmos,
      { apiVersion: 'served.kopf.dev/v1', kind: 'Gizmo', metadata: { name: 'z1', namespace: 'default' } },
    );
    await capture.waitFor(
      (r) => r.message === "The resource gizmos.v1.served.kopf.dev in 'default' is served again.",
      { timeout: 30 },
    );
    await capture.waitFor(about('z1', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(calls, ['z1']);

    const before = capture.records.filter((r) => r.message === missing).length;
    await deleteObject(cluster.client, CustomResourceDefinitions, { name: 'gizmos.served.kopf.dev' });
    await capture.waitFor(
      (r) => r.message === missing && capture.records.filter((m) => m.message === missing).length > before,
      { timeout: 60 },
    );
    assert.ok(
      !capture.records.some((r) => r.level >= 40),
      capture.lines.filter((l) => /ERROR|CRITICAL/.test(l)).join('\n'),
    );
  });
});

test('a resource named by a string is served once its CRD is created', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create('widgets.late.kopf.dev', async function create_fn({ name }) { calls.push(name); });
  await withOperator(cluster, registry, async ({ capture }) => {
    await capture.waitFor(
      (r) => r.message.startsWith(
        "Unresolved resources cannot be served (try creating their CRDs): 'widgets.late.kopf.dev'"
      ),
      { timeout: 30 },
    );
    await cluster.cp.installCrds(
      [
        {
          ...GIZMO_CRD,
          metadata: { name: 'widgets.late.kopf.dev' },
          spec: {
            ...GIZMO_CRD.spec,
            group: 'late.kopf.dev',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          },
        }
      ]
    );
    // "its CRD was created", or "discovery lists it" if the CRD came before the operator's listing of CRDs.
    await capture.waitFor(
      (r) => r.message.startsWith("The resource 'widgets.late.kopf.dev' is served now: "),
      { timeout: 30 },
    );
    const Widgets: ResourceDescriptor = {
      group: 'late.kopf.dev',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
      scope: 'Namespaced',
    };
    await createObject(
      cluster.client,
      Widgets,
      { apiVersion: 'late.kopf.dev/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' } },
    );
    await capture.waitFor(about('w1', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(calls, ['w1']);
  });
});

test('a resource named by a string follows its name when its CRD is re-created in another group', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(
    'things',
    async function create_fn({ name, resource }) { calls.push(`${name} ${resource.group}`); },
  );
  const settings = defaultSettings({ posting: { enabled: false }, networking: { errorBackoffs: [0.2] } });
  const thingsIn = (group: string) => ({
    ...GIZMO_CRD,
    metadata: { name: `things.${group}` },
    spec: { ...GIZMO_CRD.spec, group, names: { plural: 'things', singular: 'thing', kind: 'Thing' } },
  });
  const thingIn = (group: string, name: string) => createObject(
    cluster.client,
    { group, version: 'v1', plural: 'things', kind: 'Thing', scope: 'Namespaced' },
    { apiVersion: `${group}/v1`, kind: 'Thing', metadata: { name, namespace: 'default' } },
  );
  await cluster.cp.installCrds([thingsIn('first.kopf.dev')]);
  await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    await thingIn('first.kopf.dev', 't1');
    await capture.waitFor(about('t1', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    await deleteObject(cluster.client, CustomResourceDefinitions, { name: 'things.first.kopf.dev' });
    await capture.waitFor(
      "The resource things.v1.first.kopf.dev in 'default' is not served (404): waiting until it is. Was its CRD " +
        "deleted, or not created yet?",
      { timeout: 60 },
    );
    await cluster.cp.installCrds([thingsIn('second.kopf.dev')]);
    await capture.waitFor(
      "The resource 'things' is served as things.v1.second.kopf.dev now, not as things.v1.first.kopf.dev.",
      { timeout: 30 },
    );
    await thingIn('second.kopf.dev', 't2');
    await capture.waitFor(about('t2', 'Creation is processed: 1 succeeded; 0 failed.'), { timeout: 30 });
    assert.deepEqual(calls, ['t1 first.kopf.dev', 't2 second.kopf.dev']);
    assert.ok(
      !capture.records.some((r) => r.level >= 40),
      capture.lines.filter((l) => /ERROR|CRITICAL/.test(l)).join('\n'),
    );
  });
});

test('an operator without resource handlers says it has nothing to serve', async () => {
  await withOperator(cluster, new OperatorRegistry(), async ({ capture }) => {
    await capture.waitFor(
      (r) => r.level === 30 && r.message === 'No resource handlers are registered: there is nothing to serve.',
      { timeout: 10 },
    );
  });
});
