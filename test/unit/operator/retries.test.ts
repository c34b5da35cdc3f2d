/**
 * An operator says when its requests fail and are retried: a minute of quiet retries (the
 * client's backoffs) would look like a hang. Against a fake API server that fails the first
 * listings with 503.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { kubeconfigOf, sendJson, startServer, status } from '../kube/fake-server.ts';

test('failed requests that will be retried are logged as warnings, with the attempt and the delay', async (t) => {
  let listings = 0;
  const server = await startServer((req, res) => {
    if (req.query.get('watch')) return void res.writeHead(200, { 'Content-Type': 'application/json' }); // a quiet watch
    if (++listings <= 2) return sendJson(res, 503, status(503, 'ServiceUnavailable', 'busy'));
    sendJson(
      res,
      200,
      { kind: 'KopfExampleList', apiVersion: 'kopf.dev/v1', metadata: { resourceVersion: '1' }, items: [] },
    );
  });
  t.after(() => server.close());
  const kubeconfig = kubeconfigOf(server);
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn() {});
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig, namespaces: ['default'], standalone: true, // the fake server serves no peering
    settings: defaultSettings({ posting: { enabled: false }, networking: { errorBackoffs: [0.01, 0.01, 0.01] } }),
    logs: new LogConfig({ verbosity: 'normal', sinks: [capture.sink] }),
  });
  try {
    await capture.waitFor((r) => r.message.startsWith('Request attempt #2/4 failed'), { timeout: 10 });
    const warnings = capture.records.filter((r) => r.name === 'kopf.api');
    assert.deepEqual(warnings.map((r) => r.level), [30, 30]);
    assert.equal(
      warnings[0]!.message,
      'Request attempt #1/4 failed; retrying in 0.0 s: GET /apis/kopf.dev/v1/namespaces/default/kopfexamples: 503 ' +
        'ServiceUnavailable: busy',
    );
  } finally {
    await op.stop();
  }
});
