/**
 * Our own write does not come back through the watch in time (a silent or broken stream): the
 * event in hand predates it. A handler's result is written before the record that says it is
 * done, so that event shows a result without its record; handled as it is, it would run the
 * handler again. The object is read afresh instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { processEvent } from '../../../runtime/processing/processing.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import type { Fields } from '../../../runtime/structs/patches.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FRESH, processorOf, storingServer } from './processor.ts';

test('after the consistency timeout, a stale event is replaced by the object read afresh: no handler runs ' +
  'twice', async (t) => {
  const { client, stop, stored: versions, gets } = await storingServer(t);
  let calls = 0;
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { calls++; return { done: true }; });
  const requeued: RawEvent[] = [];
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0.05 } });
  const logger = new Logger(new LogConfig({ sinks: [] }));
  const proc = processorOf(
    registry,
    { client, settings, logger, stopping: stop.signal, enqueue: (_, event) => requeued.push(event) },
  );
  t.after(() => proc.memories.clear());

  await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: FRESH }, new AbortController().signal);
  assert.equal(calls, 1);
  const [withResult] = versions;
  assert.ok((withResult?.status as Fields | undefined)?.create_fn, 'the result is written first');
  assert.equal(versions.length, 2, 'then the records');

  // The watch shows the first write only, and then nothing for longer than the timeout.
  const changed = { kind: 'event', type: 'MODIFIED', object: withResult! } as const;
  await processEvent(proc, 'u1', changed, new AbortController().signal);
  assert.equal(calls, 1, 'the handler ran again on a stale body');
  assert.equal(gets(), 1, 'the object was not read afresh');
  assert.equal(requeued.length, 1);
  assert.equal(requeued[0]!.object.metadata?.resourceVersion, versions[1]!.metadata?.resourceVersion);

  await processEvent(proc, 'u1', requeued[0]!, new AbortController().signal);
  assert.equal(calls, 1);
});
