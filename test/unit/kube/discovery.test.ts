import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnresolvedResourceError, missingVerbs, parseSelector, resolveResource } from '../../../runtime/kube/index.ts';
import { clientOf, sendJson, startServer, status } from './fake-server.ts';

test('selectors in every written form', () => {
  assert.deepEqual(parseSelector('kex'), { name: 'kex' });
  assert.deepEqual(parseSelector('KopfExample'), { name: 'KopfExample' });
  assert.deepEqual(parseSelector('kopfexamples.kopf.dev'), { group: 'kopf.dev', name: 'kopfexamples' });
  assert.deepEqual(
    parseSelector('kopfexamples.v1.kopf.dev'),
    { group: 'kopf.dev', version: 'v1', name: 'kopfexamples' },
  );
  assert.deepEqual(
    parseSelector('deployments.v1beta2.apps'),
    { group: 'apps', version: 'v1beta2', name: 'deployments' },
  );
  assert.deepEqual(
    parseSelector('kopf.dev/v1/kopfexamples'),
    { group: 'kopf.dev', version: 'v1', name: 'kopfexamples' },
  );
  assert.deepEqual(parseSelector('kopf.dev/kopfexamples'), { group: 'kopf.dev', name: 'kopfexamples' });
  assert.deepEqual(parseSelector('v1/pods'), { group: '', version: 'v1', name: 'pods' });
  assert.deepEqual(parseSelector('pods.v1'), { group: '', version: 'v1', name: 'pods' });
  for (const bad of ['', 'a//b', 'a/b/c/d', 'pods.', '.pods', '/pods'])
    assert.throws(() => parseSelector(bad), TypeError, bad);
});

/**
 * A discovery API: the core group, kopf.dev (v1 preferred, v1beta1 older), metrics (pods), and two groups sharing a
 * name.
 */
function discoveryServer(extraGroups: () => { name: string; resources: object[] }[] = () => []) {
  const groups = () => [
    { name: 'kopf.dev', versions: ['v1', 'v1beta1'], preferred: 'v1' },
    { name: 'metrics.k8s.io', versions: ['v1beta1'], preferred: 'v1beta1' },
    { name: 'one.example.com', versions: ['v1'], preferred: 'v1' },
    { name: 'two.example.com', versions: ['v1'], preferred: 'v1' },
    { name: 'broken.example.com', versions: ['v1'], preferred: 'v1' },
    ...extraGroups().map((g) => ({ name: g.name, versions: ['v1'], preferred: 'v1' })),
  ];
  const resources: Record<string, object[]> = {
    '/api/v1': [
      {
        name: 'pods',
        singularName: 'pod',
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'list', 'watch'],
        shortNames: ['po'],
      },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch'] },
      {
        name: 'namespaces',
        singularName: '',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['get', 'list'],
        shortNames: ['ns'],
      },
    ],
    '/apis/kopf.dev/v1': [
      {
        name: 'kopfexamples',
        singularName: 'kopfexample',
        namespaced: true,
        kind: 'KopfExample',
        verbs: ['get', 'list', 'watch', 'patch'],
        shortNames: ['kopfexes', 'kopfex', 'kexes', 'kex'],
        categories: ['all'],
      },
      {
        name: 'kopfexamples/status',
        singularName: '',
        namespaced: true,
        kind: 'KopfExample',
        verbs: ['get', 'patch', 'update'],
      },
    ],
    '/apis/kopf.dev/v1beta1': [
      { name: 'kopfexamples', singularName: 'kopfexample', namespaced: true, kind: 'KopfExample', verbs: ['get'] },
      { name: 'oldthings', singularName: 'oldthing', namespaced: true, kind: 'OldThing', verbs: ['get'] },
    ],
    '/apis/metrics.k8s.io/v1beta1': [
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }
    ],
    '/apis/one.example.com/v1': [
      { name: 'widgets', singularName: 'widget', namespaced: false, kind: 'Widget', verbs: ['list'] }
    ],
    '/apis/two.example.com/v1': [
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['list'] }
    ],
  };
  return startServer((req, res) => {
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/apis') {
      return sendJson(res, 200, {
        kind: 'APIGroupList',
        groups: groups().map(
          (g) => (
            {
              name: g.name,
              versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
              preferredVersion: { groupVersion: `${g.name}/${g.preferred}`, version: g.preferred },
            }
          )
        ),
      });
    }
    if (req.path === '/apis/broken.example.com/v1')
      return sendJson(res, 503, status(503, 'ServiceUnavailable', 'the aggregated API is down'));
    const extra = extraGroups().find((g) => req.path === `/apis/${g.name}/v1`);
    const list = extra?.resources ?? resources[req.path];
    if (!list) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    sendJson(res, 200, { kind: 'APIResourceList', resources: list });
  });
}

test('a custom resource resolves from its kind, plural, singular, short names and qualified forms', async (t) => {
  const server = await discoveryServer();
  t.after(() => server.close());
  const client = clientOf(server);
  for (
    const selector of [
      'kopfexamples',
      'KopfExample',
      'kopfexample',
      'kex',
      'kopfexes',
      'kopfexamples.kopf.dev',
      'kopf.dev/v1/kopfexamples',
      'kopfexamples.v1.kopf.dev',
      'kopf.dev/kex',
    ]
  ) {
    const r = await resolveResource(client, selector);
    assert.deepEqual(
      {
        group: r.group,
        version: r.version,
        plural: r.plural,
        kind: r.kind,
        scope: r.scope,
        subresources: r.subresources,
        singular: r.singular,
      },
      {
        group: 'kopf.dev',
        version: 'v1',
        plural: 'kopfexamples',
        kind: 'KopfExample',
        scope: 'Namespaced',
        subresources: ['status'],
        singular: 'kopfexample',
      },
      selector,
    );
    assert.deepEqual(r.verbs, ['get', 'list', 'watch', 'patch']);
    assert.deepEqual(r.shortNames, ['kopfexes', 'kopfex', 'kexes', 'kex']);
  }
  const older = await resolveResource(client, 'kopfexamples.v1beta1.kopf.dev');
  assert.equal(older.version, 'v1beta1');
  assert.deepEqual(
    await resolveResource(client, { group: 'kopf.dev', version: 'v1beta1', name: 'oldthings' }).then((r) => r.kind),
    'OldThing',
  );
});

test('a name served by the core group and another resolves to the core one', async (t) => {
  const server = await discoveryServer();
  t.after(() => server.close());
  const client = clientOf(server);
  const pods = await resolveResource(client, 'pods');
  assert.deepEqual([pods.group, pods.version, pods.kind, pods.subresources], ['', 'v1', 'Pod', ['status']]);
  const metrics = await resolveResource(client, 'pods.metrics.k8s.io');
  assert.equal(metrics.kind, 'PodMetrics');
  const ns = await resolveResource(client, 'ns');
  assert.deepEqual([ns.scope, ns.singular], ['Cluster', 'namespace']);
});

test('ambiguity and absence are errors that list the candidates', async (t) => {
  const server = await discoveryServer();
  t.after(() => server.close());
  const client = clientOf(server);
  const ambiguous = await resolveResource(client, 'widgets').catch((e: unknown) => e);
  assert.ok(ambiguous instanceof UnresolvedResourceError);
  assert.equal(ambiguous.reason, 'ambiguous');
  assert.deepEqual(ambiguous.candidates.map((c) => c.group).sort(), ['one.example.com', 'two.example.com']);
  assert.match(ambiguous.message, /widgets\.one\.example\.com\/v1/);
  assert.match(ambiguous.message, /broken\.example\.com\/v1/, 'names the groups that could not be read');

  const absent = await resolveResource(client, 'nothings').catch((e: unknown) => e);
  assert.ok(absent instanceof UnresolvedResourceError);
  assert.equal(absent.reason, 'absent');
  assert.deepEqual(absent.candidates, []);
  assert.match(absent.message, /"nothings" is not served/);

  const nonPreferred = await resolveResource(client, 'oldthings').catch((e: unknown) => e);
  assert.ok(nonPreferred instanceof UnresolvedResourceError);
  assert.deepEqual(nonPreferred.candidates.map((c) => `${c.group}/${c.version}`), ['kopf.dev/v1beta1']);
  assert.match(nonPreferred.message, /oldthings\.kopf\.dev\/v1beta1/);

  await assert.rejects(
    resolveResource(client, 'widgets.broken.example.com'),
    (e: unknown) => (e as { status?: number }).status === 503,
    'a named group that fails is an API error',
  );
});

test('discovery is cached per client; a miss refreshes it, so CRDs added at run time resolve', async (t) => {
  const extra: { name: string; resources: object[] }[] = [];
  const server = await discoveryServer(() => extra);
  t.after(() => server.close());
  const client = clientOf(server);
  await resolveResource(client, 'kex');
  const afterFirst = server.received.length;
  await resolveResource(client, 'kopfexamples');
  await resolveResource(client, 'pods');
  assert.equal(
    server.received.length,
    afterFirst + 2,
    'only the failing aggregated API is asked again, once per lookup',
  );

  extra.push(
    {
      name: 'late.example.com',
      resources: [
        { name: 'latecomers', singularName: 'latecomer', namespaced: true, kind: 'Latecomer', verbs: ['list'] }
      ],
    }
  );
  const late = await resolveResource(client, 'latecomer');
  assert.equal(late.group, 'late.example.com');

  const before = server.received.length;
  client.discovery.invalidate();
  await resolveResource(client, 'kex');
  assert.ok(server.received.length > before, 'invalidate() makes the next lookup ask the server');
});

test('the verbs a discovered resource lacks are named; a descriptor from elsewhere lacks none that is known', async (
  t
) => {
  const server = await discoveryServer();
  t.after(() => server.close());
  const client = clientOf(server);
  assert.deepEqual(missingVerbs(await resolveResource(client, 'kex'), ['list', 'watch', 'patch']), []);
  assert.deepEqual(missingVerbs(await resolveResource(client, 'pods'), ['list', 'watch', 'patch']), ['patch']);
  assert.deepEqual(missingVerbs(await resolveResource(client, 'ns'), ['list', 'watch']), ['watch']);
  assert.deepEqual(
    missingVerbs(
      { group: 'kopf.dev', version: 'v1', plural: 'kopfexamples', kind: 'KopfExample', scope: 'Namespaced' },
      ['list', 'watch', 'patch'],
    ),
    [],
  );
});
