import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createObject,
  deleteObject,
  getObject,
  patchObject,
  patchObjectVersion,
  replaceObject,
} from '../../../runtime/kube/index.ts';
import { resourceVersionIn } from '../../../runtime/kube/objects.ts';
import type { ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { ConfigMaps, Namespaces } from '../../../runtime/structs/builtins.ts';
import { clientOf, sendJson, startServer } from './fake-server.ts';

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { size: number; colour?: string };
  status?: { ready?: boolean };
  [key: string]: unknown;
}
const Widgets: ResourceDescriptor<Widget> = {
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  scope: 'Namespaced',
  subresources: ['status'],
};

async function echoServer(t: { after: (fn: () => Promise<void>) => void }) {
  const server = await startServer(
    (req, res) => sendJson(res, 200, { metadata: { name: 'echo' }, echoed: req.body ? JSON.parse(req.body) : null })
  );
  t.after(() => server.close());
  return server;
}

test('each verb goes to its path with its method, content type and parameters', async (t) => {
  const server = await echoServer(t);
  const client = clientOf(server);
  const ref = { namespace: 'ns1', name: 'w1' };

  await getObject(client, Widgets, ref);
  await getObject(client, Widgets, ref, { subresource: 'status' });
  await createObject(
    client,
    Widgets,
    { metadata: { name: 'w1', namespace: 'ns1' }, spec: { size: 1 } },
    { fieldManager: 'kopf', dryRun: true },
  );
  await replaceObject(
    client,
    Widgets,
    { metadata: { name: 'w1', namespace: 'ns1', resourceVersion: '7' }, status: { ready: true } },
    { subresource: 'status' },
  );
  await patchObject(client, Widgets, ref, { spec: { colour: null } });
  await patchObject(client, Widgets, ref, { status: { ready: true } }, { subresource: 'status' });
  await patchObject(
    client,
    Widgets,
    ref,
    [{ op: 'test', path: '/metadata/finalizers', value: [] }, { op: 'remove', path: '/metadata/finalizers' }],
    { type: 'json' },
  );
  await patchObject(client, Widgets, ref, { spec: { size: 3 } }, { type: 'apply', fieldManager: 'kopf', force: true });
  await patchObject(client, ConfigMaps, ref, { data: { a: '1' } }, { type: 'strategic' });
  await deleteObject(
    client,
    Widgets,
    ref,
    { propagationPolicy: 'Foreground', preconditions: { uid: 'u1', resourceVersion: '9' }, gracePeriodSeconds: 0 },
  );
  await getObject(client, Namespaces, { name: 'default' });

  const seen = server.received.map((r) => [r.method, r.path, r.headers['content-type'] ?? '', r.query.toString()]);
  assert.deepEqual(seen, [
    ['GET', '/apis/example.com/v1/namespaces/ns1/widgets/w1', '', ''],
    ['GET', '/apis/example.com/v1/namespaces/ns1/widgets/w1/status', '', ''],
    ['POST', '/apis/example.com/v1/namespaces/ns1/widgets', 'application/json', 'dryRun=All&fieldManager=kopf'],
    ['PUT', '/apis/example.com/v1/namespaces/ns1/widgets/w1/status', 'application/json', ''],
    ['PATCH', '/apis/example.com/v1/namespaces/ns1/widgets/w1', 'application/merge-patch+json', ''],
    ['PATCH', '/apis/example.com/v1/namespaces/ns1/widgets/w1/status', 'application/merge-patch+json', ''],
    ['PATCH', '/apis/example.com/v1/namespaces/ns1/widgets/w1', 'application/json-patch+json', ''],
    [
      'PATCH',
      '/apis/example.com/v1/namespaces/ns1/widgets/w1',
      'application/apply-patch+yaml',
      'fieldManager=kopf&force=true',
    ],
    ['PATCH', '/api/v1/namespaces/ns1/configmaps/w1', 'application/strategic-merge-patch+json', ''],
    ['DELETE', '/apis/example.com/v1/namespaces/ns1/widgets/w1', 'application/json', ''],
    ['GET', '/api/v1/namespaces/default', '', ''],
  ]);
  const bodies = server.received.map((r) => (r.body ? JSON.parse(r.body) : undefined));
  assert.deepEqual(
    bodies[2],
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns1' }, spec: { size: 1 } },
  );
  assert.deepEqual(bodies[4], { spec: { colour: null } });
  assert.deepEqual(
    bodies[7],
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } },
  );
  assert.deepEqual(
    bodies[9],
    {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1', resourceVersion: '9' },
      gracePeriodSeconds: 0,
    },
  );
  assert.deepEqual(client.requestCounts(), { get: 3, create: 1, update: 1, patch: 5, delete: 1 });
});

test('the result is the server\'s object, typed by the descriptor', async (t) => {
  const server = await startServer(
    (req, res) => sendJson(
      res,
      200,
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 5 } },
    )
  );
  t.after(() => server.close());
  const widget = await getObject(clientOf(server), Widgets, { namespace: 'ns', name: 'w1' });
  const size: number | undefined = widget.spec?.size;
  assert.equal(size, 5);
});

test('misuse fails before any request: no namespace for a namespaced kind, apply without a field manager', async (
  t
) => {
  const server = await echoServer(t);
  const client = clientOf(server);
  await assert.rejects(getObject(client, Widgets, { name: 'w1' }), /widgets\.example\.com\/v1 is namespaced/);
  await assert.rejects(createObject(client, Widgets, { metadata: { name: 'w1' } }), /namespaced/);
  await assert.rejects(replaceObject(client, Widgets, { metadata: { namespace: 'ns' } }), /without metadata\.name/);
  const ref = { namespace: 'ns', name: 'w1' };
  // @ts-expect-error: the types demand a fieldManager for server-side apply; so does the run time.
  await assert.rejects(patchObject(client, Widgets, ref, { spec: { size: 1 } }, { type: 'apply' }), /fieldManager/);
  assert.equal(server.received.length, 0);
});

test('a patch that wants only the new version asks for the metadata and reads the version from it', async (t) => {
  const partial =
    '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w1","namespace":"ns",' +
      '"uid":"u","resourceVersion":"42","annotations":{"x":"\\"resourceVersion\\":\\"1\\""}}}';
  const server = await startServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(partial);
  });
  t.after(() => server.close());
  const client = clientOf(server);
  const version = await patchObjectVersion(
    client,
    Widgets,
    { namespace: 'ns', name: 'w1' },
    [{ op: 'remove', path: '/metadata/finalizers' }],
    { type: 'json', subresource: 'status' },
  );
  assert.equal(version, '42');
  const [request] = server.received;
  assert.equal(request?.path, '/apis/example.com/v1/namespaces/ns/widgets/w1/status');
  assert.equal(request?.headers['content-type'], 'application/json-patch+json');
  assert.equal(
    request?.headers.accept,
    'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
  );
  assert.deepEqual(client.requestCounts(), { patch: 1 });
});

test('the version of a whole object (a server that ignores the metadata-only ask) is read by parsing it', () => {
  // Sorted keys, as the API server writes custom resources: a field before metadata may hold the same key.
  const whole = {
    apiVersion: 'example.com/v1',
    config: { resourceVersion: 'not-this' },
    kind: 'Widget',
    metadata: { name: 'w1', resourceVersion: '43' },
  };
  assert.equal(resourceVersionIn(Buffer.from(JSON.stringify(whole))), '43');
  assert.equal(
    resourceVersionIn(
      Buffer.from(
        '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w1","resourceVersion":"44"}}'
      )
    ),
    '44',
  );
  assert.equal(
    resourceVersionIn(
      Buffer.from('{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w1"}}')
    ),
    undefined,
  );
  assert.equal(resourceVersionIn(Buffer.alloc(0)), undefined);
});
