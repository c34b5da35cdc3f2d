/**
 * "Starting the watch-stream for …" is the line that says a stream is ready (the testing kit's
 * users and the examples wait for it before they create objects): it comes once the stream's first
 * listing is over, so that what is created after it comes as an event of the stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { deferred, kubeconfigOf, sendJson, startServer } from '../kube/fake-server.ts';
import type { ServerResponse } from 'node:http';

const LIST_PATH = '/apis/kopf.dev/v1/namespaces/default/kopfexamples';
const READY = 'Starting the watch-stream for kopfexamples.v1.kopf.dev in \'default\'.';

test('the ready line of a stream comes once its first listing is over, not before', async (t) => {
  const listing = deferred<ServerResponse>();
  const server = await startServer((req, res) => {
    if (req.path !== LIST_PATH) return sendJson(res, 404, {});
    if (req.query.get('watch')) return res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
    listing.resolve(res); // answered by the test
  });
  t.after(() => server.close());
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, function event_fn() {});
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: kubeconfigOf(server), namespaces: ['default'], standalone: true,
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }),
  });
  t.after(() => op.stop());
  const pending = await listing.promise;
  assert.ok(!capture.messages().includes(READY), 'said while the listing is under way');
  const listed = { metadata: { name: 'listed', namespace: 'default', uid: 'u1', resourceVersion: '5' } };
  sendJson(pending, 200, { kind: 'KopfExampleList', metadata: { resourceVersion: '7' }, items: [listed] });
  await capture.waitFor(READY, { timeout: 30 });
  await op.stop();
});
