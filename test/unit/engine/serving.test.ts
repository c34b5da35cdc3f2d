/**
 * Resources named by string are served only if discovery says they can be, as Kopf decides: listed
 * and watched always, patched too when changing handlers are registered for them. The others, and
 * names that match several resources or none, are reported in Kopf's words, and the operator
 * serves the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/settings.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { deferred, sendJson, startServer, status } from '../kube/fake-server.ts';

const CORE = [
  { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'] },
  { name: 'componentstatuses', singularName: 'componentstatus', namespaced: false, kind: 'ComponentStatus', verbs: ['get', 'list'] },
  { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'watch', 'patch'] },
];

/** Two groups that both serve `widgets`: the bare name is ambiguous. */
const GROUPS = ['one.example.com', 'two.example.com'];
const WIDGETS = { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list', 'watch', 'patch'] };
const group = (name: string) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } });

test('non-watchable resources, non-patchable ones with changing handlers, ambiguous and absent names are not served; the rest are', async (t) => {
  const requests: string[] = [];
  const listed = deferred();
  const server = await startServer((req, res) => {
    requests.push(`${req.method} ${req.path}`);
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', groups: GROUPS.map(group) });
    if (req.path === '/api/v1') return sendJson(res, 200, { kind: 'APIResourceList', resources: CORE });
    if (GROUPS.some((name) => req.path === `/apis/${name}/v1`)) return sendJson(res, 200, { kind: 'APIResourceList', resources: [WIDGETS] });
    if (req.path === '/api/v1/namespaces/default/configmaps' && !req.query.has('watch')) {
      listed.resolve();
      return sendJson(res, 200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    }
    if (req.query.has('watch')) return; // held open until the operator stops
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  });
  t.after(() => server.close());
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({ clusters: [{ name: 'c', server: server.url }], users: [{ name: 'u', token: 't' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
  const registry = new OperatorRegistry();
  registry.on.create('pods', async function create_fn() {});
  registry.on.event('pods', async function seen_fn() {});
  registry.on.event('componentstatuses', async function status_fn() {});
  registry.on.event('configmaps', async function config_fn() {});
  registry.on.event('widgets', async function widget_fn() {});
  registry.on.event('gadgets', async function gadget_fn() {});
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig, namespaces: ['default'],
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'normal', sinks: [capture.sink] }),
  });
  try {
    await op.ready;
    await listed.promise;
  } finally {
    await op.stop();
  }
  const warnings = capture.messages().filter((m) => / resources (will not|cannot) be served/.test(m)).map((m) => m.replace(/(: '\w+'): .*/, '$1: …'));
  assert.deepEqual(warnings, [
    "Non-patchable resources will not be served: 'pods' (it has changing handlers, which write to the objects).",
    "Non-watchable resources will not be served: 'componentstatuses' (it cannot be watched).",
    "Ambiguous resources will not be served (try specifying API groups): 'widgets': …",
    "Unresolved resources cannot be served (try creating their CRDs): 'gadgets': …",
  ]);
  assert.ok(!requests.some((r) => /\/(pods|componentstatuses|widgets)\b/.test(r) && r.includes('/namespaces/')), requests.join('\n'));
});
