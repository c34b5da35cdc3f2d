/**
 * The storage migration against a fake API server: objects written back as read, counted as
 * rewritten when the API server stored them again (a new resourceVersion), skipped when changed or
 * deleted meanwhile; storedVersions trimmed; refusals before any object is read or written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MigrationError, migrateStorage, summaryLine } from '../../../runtime/conversion/migration.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { CRD_NAME, GROUP, V1, V1alpha1, alphaConverters } from '../../e2e/conversion/widgets.ts';
import { clientOf, sendJson, startServer, status, type Received } from '../kube/fake-server.ts';

const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`;

function crd(storedVersions: string[], strategy = 'Webhook') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: CRD_NAME },
    spec: {
      group: GROUP, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, conversion: { strategy },
      versions: [{ name: 'v1', served: true, storage: true }, { name: 'v1alpha1', served: true, storage: false }],
    },
    status: { storedVersions },
  };
}

const item = (name: string, resourceVersion: string) =>
  ({ metadata: { name, namespace: 'default', resourceVersion }, spec: {} });

/** A fake API server with three widgets: one stored anew, one unchanged, one changed since the listing. */
async function server(storedVersions: string[], strategy?: string) {
  return startServer((req: Received, res) => {
    if (req.path === CRD_PATH && req.method === 'GET') return sendJson(res, 200, crd(storedVersions, strategy));
    if (req.path === `${CRD_PATH}/status` && req.method === 'PATCH') return sendJson(res, 200, crd(['v1']));
    if (req.path === `/apis/${GROUP}/v1/widgets` && req.method === 'GET') {
      const items = [item('old', '1'), item('new', '2'), item('busy', '3')];
      return sendJson(res, 200, { items, metadata: { resourceVersion: '10' } });
    }
    const name = req.path.split('/').pop();
    if (req.method === 'PUT' && name === 'busy') return sendJson(res, 409, status(409, 'Conflict', 'changed'));
    if (req.method === 'PUT') return sendJson(res, 200, { ...JSON.parse(req.body), metadata: {
      ...JSON.parse(req.body).metadata, resourceVersion: name === 'old' ? '11' : '2' } });
    return sendJson(res, 404, status(404, 'NotFound', `${req.method} ${req.path}`));
  });
}

test('every object is written back as read; the rewritten ones counted; storedVersions trimmed', async (t) => {
  const api = await server(['v1alpha1', 'v1']);
  t.after(() => api.close());
  const client = clientOf(api, { errorBackoffs: [] });
  t.after(() => client.close());
  const progress: string[] = [];
  const track = (done: number, total: number) => progress.push(`${done}/${total}`);
  const summary = await migrateStorage({ client, crd: CRD_NAME, progress: track });
  assert.deepEqual(progress, ['1/3', '2/3', '3/3']);
  assert.deepEqual({ ...summary }, {
    crd: CRD_NAME, storage: 'v1', objects: 3, rewritten: 1, skipped: 1,
    storedVersions: { before: ['v1alpha1', 'v1'], after: ['v1'] },
  });
  const puts = api.received.filter((r) => r.method === 'PUT');
  assert.deepEqual(puts.map((r) => [r.path, JSON.parse(r.body).metadata.resourceVersion]), [
    [`/apis/${GROUP}/v1/namespaces/default/widgets/old`, '1'],
    [`/apis/${GROUP}/v1/namespaces/default/widgets/new`, '2'],
    [`/apis/${GROUP}/v1/namespaces/default/widgets/busy`, '3'],
  ]);
  const trim = api.received.find((r) => r.path === `${CRD_PATH}/status`);
  assert.deepEqual(JSON.parse(trim!.body), { status: { storedVersions: ['v1'] } });
  assert.equal(summaryLine(summary), `Migrated ${CRD_NAME} to v1: 3 objects, 1 rewritten, 1 changed or deleted ` +
    'meanwhile; storedVersions [v1alpha1, v1] → [v1].');
});

test('a stored version without a converter refuses before anything is read; under None it does not', async (t) => {
  const api = await server(['v1beta1', 'v1']);
  t.after(() => api.close());
  const client = clientOf(api, { errorBackoffs: [] });
  t.after(() => client.close());
  const registry = new OperatorRegistry();
  registry.on.convert(V1, V1alpha1, alphaConverters);
  await assert.rejects(migrateStorage({ client, crd: CRD_NAME, converters: registry.conversionHandlers }),
    (e: unknown) => e instanceof MigrationError && /converts by Webhook, but no converter \(on\.convert\) converts its /
      .test(e.message) && /stored version\(s\) v1beta1/.test(e.message));
  assert.deepEqual(api.received.map((r) => r.method), ['GET'], 'only the CRD was read');
  const none = await server(['v1beta1', 'v1'], 'None');
  t.after(() => none.close());
  const noneClient = clientOf(none, { errorBackoffs: [] });
  t.after(() => noneClient.close());
  const summary = await migrateStorage({ client: noneClient, crd: CRD_NAME, converters: registry.conversionHandlers });
  assert.equal(summary.objects, 3);
});

test('an unknown CRD is said so', async (t) => {
  const api = await startServer((_req, res) => sendJson(res, 404, status(404, 'NotFound', 'no such CRD')));
  t.after(() => api.close());
  const client = clientOf(api, { errorBackoffs: [] });
  t.after(() => client.close());
  await assert.rejects(migrateStorage({ client, crd: 'nothings.example.com' }),
    (e: unknown) => e instanceof MigrationError && e.message === 'There is no CRD named nothings.example.com.');
});
