/**
 * The streams of a reconciler's related resources are served by their scope: a cluster-scoped
 * resource is watched once, not once per namespace the operator serves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import type { ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { kubeconfigOf, sendJson, startServer } from '../kube/fake-server.ts';

const Globals: ResourceDescriptor = {
  group: 'example.com', version: 'v1', plural: 'globals', kind: 'Global', scope: 'Cluster',
};
const Locals: ResourceDescriptor = {
  group: 'example.com', version: 'v1', plural: 'locals', kind: 'Local', scope: 'Namespaced',
};

test('a cluster-scoped related resource is watched once; a namespaced one in each namespace', async (t) => {
  const lists: string[] = [];
  const server = await startServer((req, res) => {
    if (req.query.get('watch')) return res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
    lists.push(req.path);
    sendJson(res, 200, { kind: 'List', metadata: { resourceVersion: '1' }, items: [] });
  });
  t.after(() => server.close());
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function reconcile_fn() {}, {
    owns: [Locals], watches: [{ resource: Globals, map: () => [] }],
  });
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: kubeconfigOf(server), namespaces: ['a', 'b'], standalone: true,
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }),
  });
  t.after(() => op.stop());
  const ready = (what: string) => capture.waitFor(`Starting the watch-stream for ${what}.`, { timeout: 30 });
  await Promise.all([
    ready('kopfexamples.v1.kopf.dev in \'a\''), ready('kopfexamples.v1.kopf.dev in \'b\''),
    ready('locals.v1.example.com in \'a\''), ready('locals.v1.example.com in \'b\''),
    ready('globals.v1.example.com cluster-wide'),
  ]);
  await op.stop();
  assert.deepEqual(lists.filter((path) => path.includes('/globals')), ['/apis/example.com/v1/globals']);
  assert.deepEqual(capture.messages().filter((m) => m.startsWith('Starting the watch-stream for globals')), [
    'Starting the watch-stream for globals.v1.example.com cluster-wide.',
  ]);
});
