/**
 * An operator stopped while its startup handlers run stops there: the handler is cancelled
 * through its signal, `ready` rejects, `done` resolves, the cleanup runs, and the API server is
 * never asked anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { kubeconfigOf, sendJson, startServer, status } from '../kube/fake-server.ts';

test('stopped during startup, the operator cancels the startup handler and ends before any request', async (t) => {
  const requests: string[] = [];
  const server = await startServer((req, res) => {
    requests.push(`${req.method} ${req.path}`);
    sendJson(res, 503, status(503, 'ServiceUnavailable', 'busy'));
  });
  t.after(() => server.close());
  const kubeconfig = kubeconfigOf(server);
  const registry = new OperatorRegistry();
  let started!: () => void;
  const starting = new Promise<void>((resolve) => { started = resolve; });
  registry.on.startup(async function wait_for_dependency({ signal }) {
    started();
    await delay(3_600_000, undefined, { signal });
  });
  const cleaned: string[] = [];
  registry.on.cleanup(async function goodbye() { cleaned.push('goodbye'); });
  registry.on.create(KopfExample, async function create_fn() {});
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig, namespaces: ['default'],
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'normal', sinks: [capture.sink] }),
  });
  await starting;
  await op.stop();
  await assert.rejects(op.ready, /The operator was stopped while it was starting\./);
  await op.done; // a stop, not a failure
  assert.deepEqual(requests, []);
  assert.deepEqual(cleaned, ['goodbye']);
  assert.ok(
    capture.messages().includes("Activity 'wait_for_dependency' is cancelled. Will escalate."),
    capture.messages().join('\n'),
  );
});
