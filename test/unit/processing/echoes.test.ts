/**
 * The echo of our own write can be replaced in the queue by a newer event before the worker takes
 * it (the worker was busy, with a reconcile request say). The newer event includes our write: it
 * is handled at once, not after the consistency timeout spent waiting for an echo that is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { applyMergePatch, type Fields } from '../../../runtime/structs/patches.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FRESH, processorOf, storingServer } from './processor.ts';

test('an event newer than the echo of our write, which it replaced in the queue, is handled without ' +
  'waiting', async (t) => {
  const { object, client, stop, gets, next } = await storingServer(t);
  const updates: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { return { done: true }; });
  registry.on.update(KopfExample, function update_fn({ spec }) { updates.push(String(spec.field)); });
  // A wait for the echo ends, after this timeout, in reading the object afresh.
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 3 } });
  const logger = new Logger(new LogConfig({ sinks: [] }));
  const proc = processorOf(registry, { client, settings, logger, stopping: stop.signal, enqueue: () => undefined });
  t.after(() => proc.memories.clear());

  await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: FRESH }, new AbortController().signal);
  const echo = copyJson(object) as KubeObject;
  // The echo comes into the queue, and a change after it replaces it there before it is processed.
  proc.memories.passing('u1', echo.metadata?.resourceVersion);
  const newer = copyJson(echo) as Fields;
  applyMergePatch(newer, { metadata: { resourceVersion: next() }, spec: { field: 'changed' } });
  const newerEvent = { kind: 'event', type: 'MODIFIED', object: newer as KubeObject } as const;
  await processEvent(proc, 'u1', newerEvent, new AbortController().signal);
  assert.equal(gets(), 0, 'the object was read afresh: the echo was waited for in vain');
  assert.deepEqual(updates, ['changed']);
});

test('an object let go while its cycle writes (a ring replica losing its membership) and back at once: its '
  + 'state from before those writes waits for their echo, and its handler does not run again', async (t) => {
  const { client, stop } = await storingServer(t);
  const registry = new OperatorRegistry();
  let runs = 0;
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 30 } });
  const logger = new Logger(new LogConfig({ sinks: [] }));
  const proc = processorOf(registry, { client, settings, logger, stopping: stop.signal });
  t.after(() => proc.memories.clear());
  registry.on.create(KopfExample, function create_fn() {
    runs++;
    proc.memories.letGo('u1'); // as the ring's release of every object, while this cycle is in flight
  });

  await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: FRESH }, new AbortController().signal);
  assert.equal(runs, 1);
  // Back here, with a state written by someone else before the cycle's writes (the ring's new seal).
  const older = copyJson(FRESH) as Fields;
  applyMergePatch(older, { metadata: { resourceVersion: '1-sealed', labels: { shard: 'here' } } });
  const newer = new AbortController();
  newer.abort(); // the echo of the writes is already in the queue behind it
  await processEvent(proc, 'u1', { kind: 'event', type: 'MODIFIED', object: older as KubeObject }, newer.signal);
  assert.equal(runs, 1, 'the handler ran again on a state from before its own success was written');
});
