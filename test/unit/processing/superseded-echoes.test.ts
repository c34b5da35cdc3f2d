/**
 * A cycle writes the handler's result, then its records: two writes, two echoes. The first echo's
 * turn would only wait for the second (`echoAwaited`), so it is left out of the queue
 * (`supersededEcho`, through `settledOnArrival`). The read afresh after a silent watch stays: if
 * the last echo has not come by the write's deadline, the first is queued then, and its turn reads
 * the object again.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { processEvent, settledOnArrival } from '../../../runtime/processing/processing.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import type { ResourceProcessor } from '../../../runtime/processing/processor.ts';
import type { EventHandler } from '../../../runtime/registry/handlers.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FRESH, processorOf, storingServer } from './processor.ts';

const TIMEOUT = 0.05;

/**
 * An object handled once by a create handler against a fake API server that stores each write as
 * a new version (`stored`, oldest first: what a watch would bring). Requests the processing queues
 * itself go to `queued`, and `next()` resolves with the first one to come after it is called.
 */
async function handledOnce(t: TestContext, extend: (proc: ResourceProcessor) => ResourceProcessor = (p) => p) {
  const { client, stop, stored, gets } = await storingServer(t);
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { calls.push('create'); return { done: true }; });
  const queued: RawEvent[] = [];
  let arrived: ((event: RawEvent) => void) | undefined;
  const enqueue = (_: string, event: RawEvent) => { queued.push(event); arrived?.(event); };
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: TIMEOUT } });
  const logger = new Logger(new LogConfig({ sinks: [] }));
  const proc = extend(processorOf(registry, { client, settings, logger, stopping: stop.signal, enqueue }));
  t.after(() => proc.memories.clear());

  await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: FRESH }, new AbortController().signal);
  assert.deepEqual(calls, ['create']);
  assert.equal(stored.length, 2, 'the result, then its records');
  const echo = (index: number): RawEvent => ({ kind: 'event', type: 'MODIFIED', object: copyJson(stored[index]!) });
  const next = () => new Promise<RawEvent>((resolve) => { arrived = resolve; });
  return { proc, calls, queued, echo, next, gets };
}

test('the echo of a cycle\'s earlier write is left out of the queue; its last write\'s echo is not', async (t) => {
  const { proc, echo } = await handledOnce(t);
  assert.equal(settledOnArrival(proc, 'u1', echo(1), false), false, 'the last write\'s echo is decided on');
  assert.equal(settledOnArrival(proc, 'u1', echo(0), true), false, 'the object has work queued or running');
  assert.equal(settledOnArrival(proc, 'u1', echo(0), false), true);
});

test('the last echo does not come (a silent watch): the earlier one is queued at the deadline, and its turn ' +
  'reads the object afresh; no handler runs twice', async (t) => {
  const { proc, calls, echo, next, gets } = await handledOnce(t);
  const deadline = next();
  assert.equal(settledOnArrival(proc, 'u1', echo(0), false), true);
  const late = await deadline;
  assert.equal(late.object.metadata?.resourceVersion, echo(0).object.metadata?.resourceVersion);

  const fresh = next();
  await processEvent(proc, 'u1', late, new AbortController().signal);
  assert.equal(gets(), 1, 'the object was not read afresh');
  const read = await fresh;
  assert.equal(read.object.metadata?.resourceVersion, echo(1).object.metadata?.resourceVersion);
  await processEvent(proc, 'u1', read, new AbortController().signal);
  assert.deepEqual(calls, ['create']);
});

test('the last echo comes before the deadline: nothing is queued for the earlier one', async (t) => {
  const { proc, queued, echo } = await handledOnce(t);
  assert.equal(settledOnArrival(proc, 'u1', echo(0), false), true);
  proc.memories.passing('u1', echo(1).object.metadata?.resourceVersion);
  // Nothing can be awaited for a request that must not come: the deadline is waited out, with room.
  await sleep(TIMEOUT * 1000 * 4);
  assert.deepEqual(queued, []);
});

test('with event handlers, the echo of an earlier write goes the whole way', async (t) => {
  const events = new OperatorRegistry();
  events.on.event(KopfExample, function watch_fn() {});
  const watching = (proc: ResourceProcessor) => ({ ...proc, watching: events.resourceHandlers as EventHandler[] });
  const { proc, echo } = await handledOnce(t, watching);
  assert.equal(settledOnArrival(proc, 'u1', echo(0), false), false);
});
