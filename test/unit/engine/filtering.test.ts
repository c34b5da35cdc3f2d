/**
 * Whether a handler is of interest is decided before the finalizer and before the wait for our own
 * writes; a `when` filter decides it knowing the change (reason, diff, old, new), as in Kopf —
 * against a fake API server, with the real processing code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type { FilterContext } from '../../../runtime/registry/contexts.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { defaultSettings } from '../../../runtime/config/settings.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { processorOf } from './processor.ts';

async function processOnce(register: (registry: OperatorRegistry) => void, body: KubeObject): Promise<{ patches: unknown[]; messages: string[] }> {
  const patches: unknown[] = [];
  const server = await startServer((req, res) => {
    patches.push(JSON.parse(req.body));
    sendJson(res, 200, { metadata: { resourceVersion: '2' } });
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
  const registry = new OperatorRegistry();
  register(registry);
  const stop = new AbortController();
  const proc = processorOf(registry, { client, settings, logger, stopping: stop.signal });
  try {
    await processEvent(proc, 'u1', { type: 'ADDED', object: body }, new AbortController().signal);
    return { patches, messages: capture.messages() };
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}

const fresh = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1' }, spec: { field: 'v' } };

test('a `when` filter decides interest knowing the change: the cause, the diff, the old and new essences', async () => {
  const seen: Pick<FilterContext<KubeObject>, 'reason' | 'diff' | 'old' | 'new'>[] = [];
  const { patches, messages } = await processOnce((registry) => {
    registry.on.delete(KopfExample, async function delete_fn() {}, { when: ({ reason, diff, old, new: current }) => { seen.push({ reason, diff, old, new: current }); return true; } });
  }, fresh);
  assert.ok(messages.includes('Adding the finalizer, thus preventing the actual deletion.'), messages.join('\n'));
  assert.equal(patches.length, 1);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.reason, 'create');
  assert.equal(seen[0]!.old, undefined);
  assert.deepEqual(seen[0]!.new, { spec: { field: 'v' } });
  assert.deepEqual(seen[0]!.diff, [['add', [], null, { spec: { field: 'v' } }]]);
});

test('a `when` filter that refuses keeps the object out of the finalizer', async () => {
  const { patches, messages } = await processOnce((registry) => {
    registry.on.delete(KopfExample, async function delete_fn() {}, { when: (ctx) => ctx.reason !== 'create' });
  }, fresh);
  assert.deepEqual(patches, []);
  assert.ok(!messages.includes('Adding the finalizer, thus preventing the actual deletion.'), messages.join('\n'));
});
