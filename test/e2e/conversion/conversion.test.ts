/**
 * Conversion end to end: the local control plane's kube-apiserver calls the embedded operator's
 * conversion webhook on loopback, as the CRD's `spec.conversion` (set by the operator) says.
 * Both directions, spoke to spoke, lists in one review, the round trip through an older version,
 * converters that fail, and the storage migration, checked in etcd itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiError, createObject, getObject, listObjects, patchObject, replaceObject, type KubeClient,
} from '../../../runtime/kube/index.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';
import { CustomResourceDefinitions } from '../../../runtime/structs/builtins.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { MigrationError, migrateStorage } from '../../../runtime/conversion/migration.ts';
import type { KubeObject, ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from '../engine/support.ts';
import {
  CRD_NAME, GROUP, V1, V1alpha1, V1beta1, WIDGET_CRD, alphaConverters, storedVersions, widgetRegistry,
  widgetVersions,
} from './widgets.ts';

const cluster = useCluster({ crds: [WIDGET_CRD], client: { errorBackoffs: [] } });
const NS = 'default';

function settings() {
  return defaultSettings({
    posting: { enabled: false },
    admission: { server: new WebhookServer({ addr: '127.0.0.1' }), managed: 'e2e.kopf.dev' },
  });
}

/**
 * The API server takes a CRD's new `spec.conversion` in a while: a probe object made in v1 is
 * read in v1alpha1 until it comes converted by this operator's webhook (the port is new each run).
 */
async function untilConverting(client: KubeClient): Promise<void> {
  const probe = await createObject(client, V1, { metadata: { name: `probe-${Date.now()}`, namespace: NS },
    spec: { replicas: 3 } });
  const ref = { namespace: NS, name: probe.metadata!.name! };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await getObject(client, V1alpha1, ref).catch((e: Error) => e);
    if (!(read instanceof Error) && read.spec?.size === 'large') break;
    if (Date.now() > deadline) throw new Error(`The API server does not call the webhook: ${String(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await cluster.client.request('DELETE', `/apis/${GROUP}/v1/namespaces/${NS}/widgets/${ref.name}`);
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ApiError, `refused with an API error, not ${String(error)}`);
  return error;
}

const ref = (name: string) => ({ namespace: NS, name });
const meta = (name: string, labels: Record<string, string> = {}) => ({ name, namespace: NS, labels });

async function setStorage(client: KubeClient, version: string): Promise<void> {
  const versions = widgetVersions(version);
  await patchObject(client, CustomResourceDefinitions, { name: CRD_NAME }, { spec: { versions } });
  // Writes in the new storage version only once the API server serves with it: a probe shows it in etcd.
  const deadline = Date.now() + 60_000;
  for (let i = 0; ; i++) {
    const name = `storage-probe-${version}-${i}`;
    await createObject(client, V1, { metadata: meta(name) });
    const stored = (await storedVersions(cluster.cp.etcdUrl)).get(`${NS}/${name}`);
    await cluster.client.request('DELETE', `/apis/${GROUP}/v1/namespaces/${NS}/widgets/${name}`);
    if (stored === `${GROUP}/${version}`) return;
    if (Date.now() > deadline) throw new Error(`The API server does not store in ${version}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('conversion through the operator\'s webhook', { timeout: 300_000 }, async (t) => {
  const { client } = cluster;
  await withOperator(cluster, widgetRegistry(), { settings: settings() }, async ({ capture }) => {
    await t.test('the operator registers its webhook in the CRD', async () => {
      const crd = await getObject(client, CustomResourceDefinitions, { name: CRD_NAME });
      const conversion = crd.spec.conversion;
      assert.equal(conversion?.strategy, 'Webhook');
      const clientConfig = conversion?.webhook?.clientConfig;
      assert.match(clientConfig?.url ?? '', /^https:\/\/127\.0\.0\.1:\d+\/widgets\.e2e\.kopf\.dev$/);
      assert.match(Buffer.from(clientConfig?.caBundle ?? '', 'base64').toString(), /BEGIN CERTIFICATE/);
      assert.deepEqual(conversion?.webhook?.conversionReviewVersions, ['v1']);
      await untilConverting(client);
    });

    await t.test('up, down, and spoke to spoke through the hub', async () => {
      await createObject(client, V1alpha1, { metadata: meta('made-old'), spec: { size: 'large', colour: 'red' } });
      assert.deepEqual((await getObject(client, V1, ref('made-old'))).spec, { replicas: 3, color: 'red' });
      assert.deepEqual((await getObject(client, V1beta1, ref('made-old'))).spec, { count: 3, color: 'red' });
      assert.equal((await storedVersions(cluster.cp.etcdUrl)).get(`${NS}/made-old`), `${GROUP}/v1`);

      await createObject(client, V1beta1, { metadata: meta('made-beta'), spec: { count: 1, color: 'blue' } });
      assert.deepEqual((await getObject(client, V1alpha1, ref('made-beta'))).spec, { size: 'small', colour: 'blue' });
    });

    await t.test('a list in a spoke version: every object converted', async () => {
      const labels = { set: 'listed' };
      for (let i = 0; i < 5; i++) {
        await createObject(client, V1, { metadata: meta(`listed-${i}`, labels), spec: { replicas: i } });
      }
      const { items } = await listObjects(client, V1alpha1, { namespace: NS, labelSelector: 'set=listed' });
      assert.deepEqual(items.map((o) => [o.apiVersion, o.metadata?.name, o.spec?.size]),
        [0, 1, 2, 3, 4].map((i) => [`${GROUP}/v1alpha1`, `listed-${i}`, i >= 3 ? 'large' : 'small']));
      // How many objects the API server puts in one review is its choice (per object, from its watch cache).
      const converted = /^Converted \d+ object\(s\) to e2e\.kopf\.dev\/v1alpha1\.$/;
      const reviews = capture.records.filter((r) => converted.test(r.message));
      assert.ok(reviews.length > 0, 'the webhook converted them');
    });

    await t.test('nothing is lost in a round trip through v1alpha1; a change through it wins', async () => {
      const spec = { replicas: 5, color: 'green', paused: true };
      await createObject(client, V1, { metadata: meta('round'), spec });
      await patchObject(client, V1alpha1, ref('round'), { spec: { colour: 'yellow' } });
      assert.deepEqual((await getObject(client, V1, ref('round'))).spec, { ...spec, color: 'yellow' });
      // Read, modify, write through v1alpha1: the kept fields travel in the annotation.
      const old = await getObject(client, V1alpha1, ref('round'));
      await replaceObject(client, V1alpha1, { ...old, spec: { ...old.spec, size: 'small' } });
      const hub = await getObject(client, V1, ref('round'));
      assert.deepEqual(hub.spec, { replicas: 1, color: 'yellow', paused: true });
      assert.equal(hub.metadata?.annotations?.['kopf.dev/conversion-data'], undefined, 'the hub carries no annotation');
    });

    await t.test('a failing converter: the caller gets its message, the rest goes on', async () => {
      for (const color of ['explode', 'wrong-version', 'rename']) {
        await createObject(client, V1, { metadata: meta(`failing-${color}`, { set: 'failing' }), spec: { color } });
      }
      const thrown = await refusal(getObject(client, V1alpha1, ref('failing-explode')));
      assert.match(thrown.message, /The converter down of widgets\.e2e\.kopf\.dev v1alpha1 ⇄ v1 failed: v1 exploded/);
      const wrong = await refusal(getObject(client, V1alpha1, ref('failing-wrong-version')));
      assert.match(wrong.message,
        /The converter down of widgets\.e2e\.kopf\.dev v1alpha1 ⇄ v1 returned apiVersion 'e2e\.kopf\.dev\/v1beta1'/);
      const renamed = await refusal(getObject(client, V1alpha1, ref('failing-rename')));
      assert.match(renamed.message, /changed metadata\.name: converters may change only labels and annotations/);
      const exploding = { metadata: meta('up-fails'), spec: { colour: 'explode-up' } };
      const up = await refusal(createObject(client, V1alpha1, exploding));
      assert.match(up.message, /The converter up of widgets\.e2e\.kopf\.dev v1alpha1 ⇄ v1 failed: v1alpha1 exploded/);
      assert.equal((await getObject(client, V1alpha1, ref('made-old'))).spec?.size, 'large', 'others convert still');
      const query = { labelSelector: 'set=failing' };
      await client.request('DELETE', `/apis/${GROUP}/v1/namespaces/${NS}/widgets`, { query });
    });

    await t.test('migrate-storage rewrites the objects stored in an older version, checked in etcd', async () => {
      await setStorage(client, 'v1alpha1');
      for (const name of ['old-1', 'old-2', 'old-3']) {
        await createObject(client, V1alpha1, { metadata: meta(name), spec: { size: 'small', colour: 'grey' } });
      }
      await setStorage(client, 'v1');
      const before = await storedVersions(cluster.cp.etcdUrl);
      assert.equal(before.get(`${NS}/old-1`), `${GROUP}/v1alpha1`);
      const crd = await getObject(client, CustomResourceDefinitions, { name: CRD_NAME });
      assert.deepEqual([...(crd.status?.storedVersions ?? [])].sort(), ['v1', 'v1alpha1']);

      const registry = widgetRegistry();
      const summary = await migrateStorage({ client, crd: CRD_NAME, converters: registry.conversionHandlers });
      assert.equal(summary.rewritten, 3, 'the three objects stored in v1alpha1, and no other');
      const after = await storedVersions(cluster.cp.etcdUrl);
      assert.ok(after.size >= 3);
      assert.deepEqual([...new Set(after.values())], [`${GROUP}/v1`]);
      const trimmed = await getObject(client, CustomResourceDefinitions, { name: CRD_NAME });
      assert.deepEqual(trimmed.status?.storedVersions, ['v1']);
      assert.deepEqual((await getObject(client, V1, ref('old-2'))).spec, { replicas: 1, color: 'grey' });

      // Again, through the command: nothing left to rewrite.
      const kopf = join(import.meta.dirname, '../../../runtime/bin/kopf.js');
      const env = { ...process.env, KUBECONFIG: cluster.cp.kubeconfigPath };
      const { stdout } = await promisify(execFile)(process.execPath, [kopf, 'migrate-storage', CRD_NAME], { env });
      assert.match(stdout, new RegExp(`^Migrated ${CRD_NAME} to v1: ${after.size} objects, 0 rewritten; ` +
        'storedVersions \\[v1\\] → \\[v1\\]\\.\\n$'));
    });

    await t.test('migrate-storage refuses a stored version that no converter converts', async () => {
      await patchObject(client, CustomResourceDefinitions, { name: CRD_NAME },
        { status: { storedVersions: ['v1beta1', 'v1'] } }, { subresource: 'status' });
      const alphaOnly = new OperatorRegistry();
      alphaOnly.on.convert(V1, V1alpha1, alphaConverters);
      await assert.rejects(
        migrateStorage({ client, crd: CRD_NAME, converters: alphaOnly.conversionHandlers }),
        (error: unknown) => error instanceof MigrationError &&
          /converts by Webhook, but no converter \(on\.convert\) converts its stored version\(s\) v1beta1/
            .test(error.message));
      const crd = await getObject(client, CustomResourceDefinitions, { name: CRD_NAME });
      assert.deepEqual(crd.status?.storedVersions, ['v1beta1', 'v1'], 'nothing is trimmed');
    });
  });
});

test('a handler on a spoke\'s descriptor gets its objects in that version', { timeout: 120_000 }, async () => {
  const registry = widgetRegistry();
  let resolve!: (body: KubeObject) => void;
  const seen = new Promise<KubeObject>((done) => { resolve = done; });
  const spoke: ResourceDescriptor = V1alpha1;
  registry.on.event(spoke, function seen_as_alpha({ body }) {
    if (body.metadata?.name === 'watched') resolve(body);
  });
  await withOperator(cluster, registry, { settings: settings() }, async () => {
    await untilConverting(cluster.client);
    await createObject(cluster.client, V1, { metadata: meta('watched'), spec: { replicas: 4, color: 'white' } });
    const watched = await seen;
    assert.equal(watched.apiVersion, `${GROUP}/v1alpha1`);
    assert.deepEqual(watched.spec, { size: 'large', colour: 'white' });
  });
});
