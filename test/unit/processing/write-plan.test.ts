/**
 * A cycle's writes are decided first and made once, in order: the event handlers' patch, then the
 * finalizer's change, guarded by the version that patch made (not by the event's, which the patch
 * has made stale).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type { ChangingHandler, EventHandler } from '../../../runtime/registry/handlers.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { applyMergePatch, type Fields } from '../../../runtime/structs/patches.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { FRESH, processorOf } from './processor.ts';

test('the finalizer is added after the event handlers\' patch, guarded by the version it made', async () => {
  const object = copyJson(FRESH) as Fields & { metadata: { resourceVersion: string; finalizers?: string[] } };
  let version = 1;
  const server = await startServer((req, res) => {
    const patch = JSON.parse(req.body) as unknown;
    if (req.headers['content-type'] === 'application/json-patch+json') {
      const ops = patch as { op: string; path: string; value?: unknown }[];
      const guard = ops.find((op) => op.op === 'test');
      if (guard?.value !== object.metadata.resourceVersion) {
        sendJson(res, 422, { kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message: 'test failed' });
        return;
      }
      for (const op of ops) if (op.op === 'add') object.metadata.finalizers = op.value as string[];
    } else {
      applyMergePatch(object, patch);
    }
    object.metadata.resourceVersion = String(++version);
    sendJson(res, 200, object);
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
  const registry = new OperatorRegistry();
  registry.on.event(KopfExample, function seen({ patch }) { patch.status.seen = true; });
  registry.on.delete(KopfExample, function cleanup() { /* needs the finalizer */ });
  const stop = new AbortController();
  const proc = {
    ...processorOf(registry, { client, settings, logger, stopping: stop.signal }),
    changing: registry.resourceHandlers.filter((h) => h.kind === 'changing') as ChangingHandler[],
    watching: registry.resourceHandlers.filter((h) => h.kind === 'event') as EventHandler[],
  };
  try {
    await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: FRESH }, new AbortController().signal);
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
  const patches = server.received.map((r) => JSON.parse(r.body) as unknown);
  assert.equal(patches.length, 2, JSON.stringify(patches));
  assert.deepEqual(patches[0], { status: { seen: true } });
  // Guarded by the version the event handlers' patch made.
  const guard = (patches[1] as { value?: unknown }[])[0];
  assert.deepEqual(guard, { op: 'test', path: '/metadata/resourceVersion', value: '2' });
  assert.deepEqual(object.metadata.finalizers, [settings.persistence.finalizer]);
  assert.ok(!capture.messages().some((m) => m.includes('conflicts')), capture.messages().join('\n'));
});
