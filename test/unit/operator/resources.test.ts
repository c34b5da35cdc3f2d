/**
 * Resources named by string are served only if discovery says they can be, as Kopf decides: listed
 * and watched always, patched too when changing handlers are registered for them. The others, and
 * names that match several resources or none, are reported in Kopf's words, and the operator
 * serves the rest. A stream that must list again says it restarts; an unknown event type is warned of.
 * (Which streams run for the served resources: serving.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { deferred, kubeconfigOf, sendJson, startServer, status, type FakeServer } from '../kube/fake-server.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

/** An operator of `registry` on the fake server (which serves no peering), serving `default`, its log captured. */
function operatorOn(server: FakeServer, registry: OperatorRegistry, verbosity: 'normal' | 'debug') {
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: kubeconfigOf(server), namespaces: ['default'], standalone: true,
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity, sinks: [capture.sink] }),
  });
  return { op, capture };
}

const CORE = [
  { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'] },
  {
    name: 'componentstatuses',
    singularName: 'componentstatus',
    namespaced: false,
    kind: 'ComponentStatus',
    verbs: ['get', 'list'],
  },
  {
    name: 'configmaps',
    singularName: 'configmap',
    namespaced: true,
    kind: 'ConfigMap',
    verbs: ['get', 'list', 'watch', 'patch'],
  },
];

/** Two groups that both serve `widgets`: the bare name is ambiguous. */
const GROUPS = ['one.example.com', 'two.example.com'];
const WIDGETS = {
  name: 'widgets',
  singularName: 'widget',
  namespaced: true,
  kind: 'Widget',
  verbs: ['get', 'list', 'watch', 'patch'],
};
const group = (name: string) => (
  {
    name,
    versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
    preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
  }
);

test('non-watchable resources, non-patchable ones with changing handlers, ambiguous and absent names are not ' +
  'served; the rest are', async (t) => {
  const requests: string[] = [];
  const listed = deferred();
  const server = await startServer((req, res) => {
    requests.push(`${req.method} ${req.path}`);
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', groups: GROUPS.map(group) });
    if (req.path === '/api/v1') return sendJson(res, 200, { kind: 'APIResourceList', resources: CORE });
    if (GROUPS.some((name) => req.path === `/apis/${name}/v1`))
      return sendJson(res, 200, { kind: 'APIResourceList', resources: [WIDGETS] });
    if (req.path === '/api/v1/namespaces/default/configmaps' && !req.query.has('watch')) {
      listed.resolve();
      return sendJson(
        res,
        200,
        { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] },
      );
    }
    if (req.query.has('watch')) return; // held open until the operator stops
    if (req.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
      const crds = { kind: 'CustomResourceDefinitionList', metadata: { resourceVersion: '1' }, items: [] };
      return sendJson(res, 200, { apiVersion: 'apiextensions.k8s.io/v1', ...crds });
    }
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  });
  t.after(() => server.close());
  const registry = new OperatorRegistry();
  registry.on.create('pods', async function create_fn() {});
  registry.on.event('pods', async function seen_fn() {});
  registry.on.event('componentstatuses', async function status_fn() {});
  registry.on.event('configmaps', async function config_fn() {});
  registry.on.event('widgets', async function widget_fn() {});
  registry.on.event('gadgets', async function gadget_fn() {});
  const { op, capture } = operatorOn(server, registry, 'normal');
  try {
    await op.ready;
    await listed.promise;
  } finally {
    await op.stop();
  }
  const warnings = capture.messages().filter((m) => / resources (will not|cannot) be served/.test(m)).map(
    (m) => m.replace(/(: '\w+'): .*/, '$1: …')
  );
  assert.deepEqual(warnings, [
    "Non-patchable resources will not be served: 'pods' (it has changing handlers, which write to the objects).",
    "Non-watchable resources will not be served: 'componentstatuses' (it cannot be watched).",
    "Ambiguous resources will not be served (try specifying API groups): 'widgets': …",
    "Unresolved resources cannot be served (try creating their CRDs): 'gadgets': …",
  ]);
  assert.ok(
    !requests.some((r) => /\/(pods|componentstatuses|widgets)\b/.test(r) && r.includes('/namespaces/')),
    requests.join('\n'),
  );
});

test('a watch-stream that must list again (410 Gone) says it restarts, once per restart; an unknown event type is a ' +
  'warning', async (t) => {
  let lists = 0;
  const relisted = deferred();
  const server = await startServer((req, res) => {
    if (req.query.has('watch')) {
      if (lists > 1) return; // held open until the operator stops
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'RENAMED', object: { metadata: { name: 'k1' } } })}\n`);
      res.end(`${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version') })}\n`);
      return;
    }
    lists++;
    const items = [
      {
        apiVersion: 'kopf.dev/v1',
        kind: 'KopfExample',
        metadata: { name: 'k1', namespace: 'default', uid: 'u1', resourceVersion: String(lists) },
      }
    ];
    sendJson(
      res,
      200,
      { kind: 'KopfExampleList', apiVersion: 'kopf.dev/v1', metadata: { resourceVersion: String(10 * lists) }, items },
    );
    if (lists === 2) relisted.resolve();
  });
  t.after(() => server.close());
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, async function seen_fn() {});
  const { op, capture } = operatorOn(server, registry, 'debug');
  try {
    await op.ready;
    await relisted.promise;
    await capture.waitFor((r) => r.message.startsWith('Restarting the watch-stream'), { timeout: 10 });
  } finally {
    await op.stop();
  }
  assert.deepEqual(capture.messages().filter((m) => /^(Starting|Restarting|Stopping) the watch-stream/.test(m)), [
    "Starting the watch-stream for kopfexamples.v1.kopf.dev in 'default'.",
    "Restarting the watch-stream for kopfexamples.v1.kopf.dev in 'default'.",
    "Stopping the watch-stream for kopfexamples.v1.kopf.dev in 'default'.",
  ]);
  assert.deepEqual(
    capture.messages().filter((m) => m.startsWith('Ignoring')),
    ['Ignoring an unsupported event type: {"type":"RENAMED","object":{"metadata":{"name":"k1"}}}'],
  );
});
