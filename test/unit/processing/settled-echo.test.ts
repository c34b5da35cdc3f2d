/**
 * The echo of our own last write needs no cycle when the state it shows leaves nothing to do
 * (`settledEcho`, through `settledOnArrival`): the write that ends an object's handling is seen
 * without a cycle of its echo, and processing that echo anyway would write nothing and run nothing.
 * Every echo before it goes the whole way, as do an event of someone else's write, an object with
 * work pending (a retry's wake-up), one whose work is queued, and an operator with event handlers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type { ResourceProcessor } from '../../../runtime/processing/processor.ts';
import type { ObjectMemory } from '../../../runtime/processing/memories.ts';
import type { EventHandler } from '../../../runtime/registry/handlers.ts';
import { processEvent, settledOnArrival } from '../../../runtime/processing/processing.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { applyMergePatch } from '../../../runtime/structs/patches.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import { ErrorDelays } from '../../../runtime/queueing/error-delays.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { clientOf, startServer } from '../kube/fake-server.ts';
import { FakeApi } from './fake-api.ts';
import { FRESH, processorOf } from './processor.ts';

/** Long enough that no echo is given up on; each event is fed after its write's answer anyway. */
const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 60 } });

type Register = (registry: OperatorRegistry, calls: string[]) => void;

const createAndDelete: Register = (registry, calls) => {
  registry.on.create(KopfExample, function create_fn() { calls.push('create'); return { ok: 1 }; });
  registry.on.delete(KopfExample, function delete_fn() { calls.push('delete'); });
};

interface Arrival {
  /** Whether the event was judged to need no cycle. */
  settled: boolean;
  /** The writes its processing made (processed even when settled, to show that it would write nothing). */
  writes: number;
}

interface Options {
  extend?: (proc: ResourceProcessor) => ResourceProcessor;
  /** The object's work is queued when the event arrives. */
  queued?: boolean;
}

/**
 * From the object's listing on, each write's echo is the next event (the stored object as the
 * write left it), until an event is processed without a write: each arrival judged, then processed.
 */
async function arrivals(
  register: Register, options: Options = {},
): Promise<{ arrivals: Arrival[]; calls: string[]; object: KubeObject }> {
  const api = new FakeApi(FRESH, []);
  const server = await startServer((req, res) => api.handle(req, res));
  const client = clientOf(server, { errorBackoffs: [] });
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  register(registry, calls);
  const stop = new AbortController();
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }));
  const base = processorOf(registry, { client, settings, logger, stopping: stop.signal });
  const proc = options.extend ? options.extend(base) : base;
  const seen: Arrival[] = [];
  try {
    let type: RawEvent['type'] = null;
    while (seen.length < 10) {
      const event: RawEvent = { kind: 'event', type, object: copyJson(api.object) as KubeObject };
      const settled = settledOnArrival(proc, 'u1', event, options.queued ?? false);
      const before = api.writes.length;
      await processEvent(proc, 'u1', event, new AbortController().signal);
      seen.push({ settled, writes: api.writes.length - before });
      if (api.writes.length === before) break;
      type = 'MODIFIED';
    }
    return { arrivals: seen, calls, object: copyJson(api.object) as KubeObject };
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}

test('the echo of the write that ends the handling is settled, and processing it writes nothing', async () => {
  const { arrivals: seen, calls } = await arrivals(createAndDelete);
  assert.ok(seen.length >= 3, 'the finalizer, then the handler, then the echo of its records');
  assert.deepEqual(seen.map((arrival) => arrival.settled), [...seen.slice(1).map(() => false), true]);
  assert.equal(seen.at(-1)!.writes, 0);
  assert.deepEqual(calls, ['create']);
});

test('resume handlers keep a listed object from being settled, not the echo of our write', async () => {
  const resuming: Register = (registry, calls) => {
    createAndDelete(registry, calls);
    registry.on.resume(KopfExample, function resume_fn() { calls.push('resume'); });
  };
  const { arrivals: seen, calls } = await arrivals(resuming);
  assert.equal(seen.at(-1)!.settled, true);
  assert.deepEqual(calls, ['create']);
});

test('an event that is not our write\'s echo, or an object with something pending, goes the whole way', async () => {
  const { object } = await arrivals(createAndDelete);
  const version = object.metadata!.resourceVersion!;
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }));
  const registry = new OperatorRegistry();
  createAndDelete(registry, []);
  const stopping = new AbortController().signal;
  const proc = processorOf(registry, { client: undefined as never, settings, logger, stopping });
  const modified = (body: KubeObject): RawEvent => ({ kind: 'event', type: 'MODIFIED', object: body });
  const theirs = copyJson(object) as KubeObject;
  applyMergePatch(theirs as never, { metadata: { labels: { by: 'someone' }, resourceVersion: `${version}1` } });
  const awaiting = (memory: ObjectMemory) => { memory.expected = { version, deadline: Date.now() + 60_000 }; };
  const cases: [string, (memory: ObjectMemory) => void, RawEvent][] = [
    ['not remembered', () => proc.memories.forget('u1'), modified(object)],
    ['nothing awaited', () => {}, modified(object)],
    ['someone else\'s write', awaiting, modified(theirs)],
    ['a resume due', (memory) => { awaiting(memory); memory.initial = true; }, modified(object)],
    ['a retry\'s throttling', (memory) => {
      awaiting(memory);
      memory.throttle = { delays: new ErrorDelays([1]), until: 0 };
    }, modified(object)],
  ];
  for (const [what, prepare, event] of cases) {
    prepare(proc.memories.recall('u1', false));
    assert.equal(settledOnArrival(proc, 'u1', event, false), false, what);
    proc.memories.forget('u1');
  }
  const ours = proc.memories.recall('u1', false);
  awaiting(ours);
  assert.equal(settledOnArrival(proc, 'u1', modified(object), false), true, 'our own write\'s echo');
  assert.equal(ours.expected, undefined, 'the write is seen');
});

test('an object with a retry pending, or with its work queued, goes the whole way', async () => {
  const retrying: Register = (registry, calls) => {
    registry.on.create(KopfExample, function create_fn() {
      calls.push('create');
      throw new TemporaryError('not yet', { delay: 60 });
    });
  };
  const pending = await arrivals(retrying);
  assert.ok(pending.arrivals.length >= 2);
  assert.ok(pending.arrivals.every((arrival) => !arrival.settled));
  const queued = await arrivals(createAndDelete, { queued: true });
  assert.ok(queued.arrivals.every((arrival) => !arrival.settled));
  assert.equal(queued.arrivals.at(-1)!.writes, 0);
});

test('with event handlers, every echo goes the whole way', async () => {
  const events = new OperatorRegistry();
  events.on.event(KopfExample, function watch_fn() {});
  const watching = (proc: ResourceProcessor) => ({ ...proc, watching: events.resourceHandlers as EventHandler[] });
  const { arrivals: seen } = await arrivals(createAndDelete, { extend: watching });
  assert.ok(seen.length >= 3);
  assert.ok(seen.every((arrival) => !arrival.settled));
});
