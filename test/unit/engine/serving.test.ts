/**
 * Resources named by string are served only if discovery says they can be, as Kopf decides: listed
 * and watched always, patched too when changing handlers are registered for them. The others are
 * reported by Kopf's words, and the operator serves the rest.
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

test('non-watchable resources, and non-patchable ones with changing handlers, are not served; the rest are', async (t) => {
  const requests: string[] = [];
  const listed = deferred();
  const server = await startServer((req, res) => {
    requests.push(`${req.method} ${req.path}`);
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', groups: [] });
    if (req.path === '/api/v1') return sendJson(res, 200, { kind: 'APIResourceList', resources: CORE });
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
  const warnings = capture.messages().filter((m) => m.startsWith('Non-'));
  assert.deepEqual(warnings, [
    "Non-patchable resources will not be served: 'pods' (it has changing handlers, which write to the objects).",
    "Non-watchable resources will not be served: 'componentstatuses' (it cannot be watched).",
  ]);
  assert.ok(!requests.some((r) => r.includes('/pods') || r.includes('/componentstatuses')), requests.join('\n'));
});
