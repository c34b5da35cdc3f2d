/**
 * Unexpected errors in processing (here: the API server refusing every patch) throttle the object
 * with the configured delays, and processing resumes when the delay is over — against a fake API
 * server, with the real processing code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { processorOf } from './processor.ts';

/**
 * The real processing of one object against a fake API server that refuses every patch while
 * `refusing` is set, with `errorDelays` for throttling; wake-ups are collected in `requeued`.
 */
async function refusedObject(errorDelays: number[]) {
  const state = { refusing: true, calls: 0, wake: (): void => undefined };
  const server = await startServer((req, res) => {
    if (req.method === 'PATCH' && state.refusing)
      sendJson(res, 400, { kind: 'Status', code: 400, reason: 'BadRequest', message: 'refused on purpose' });
    else sendJson(res, 200, { metadata: { resourceVersion: '2' } });
  });
  const client = clientOf(server, { errorBackoffs: [] });
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings(
    { posting: { enabled: false }, queueing: { errorDelays }, persistence: { consistencyTimeout: 0 } }
  );
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn() { state.calls++; });
  const stop = new AbortController();
  const requeued: RawEvent[] = [];
  const proc = processorOf(
    registry,
    {
      client,
      settings,
      logger,
      stopping: stop.signal,
      enqueue: (_key, event) => { requeued.push(event); state.wake(); },
    },
  );
  const body = {
    apiVersion: 'kopf.dev/v1',
    kind: 'KopfExample',
    metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1' },
    spec: {},
  };
  const process = (event: RawEvent) => processEvent(proc, 'u1', event, new AbortController().signal);
  const close = async (): Promise<void> => {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  };
  return { state, capture, requeued, body, process, close };
}

test('an unexpected error throttles the object, then processing resumes', { timeout: 10_000 }, async () => {
  const { state, capture, requeued, body, process, close } = await refusedObject([0.2, 0.3]);
  try {
    await process({ kind: 'event', type: 'ADDED', object: body });
    assert.ok(
      capture.messages().some((m) => m.startsWith('Throttling for 0.2 seconds due to an unexpected error:')),
      capture.messages().join('\n'),
    );

    // While throttled, events are not processed; the wake-up brings the object back.
    const woken = new Promise<void>((resolve) => { state.wake = resolve; });
    state.refusing = false;
    await woken;
    assert.equal(requeued.length, 1);
    assert.equal(requeued[0].kind, 'wakeup');
    await process(requeued[0]);
    assert.ok(capture.messages().includes('Throttling is over. Switching back to normal operations.'));
    assert.ok(state.calls >= 1, 'the handler ran once throttling was over');
    assert.ok(capture.messages().includes('Creation is processed: 1 succeeded; 0 failed.'));
  } finally {
    await close();
  }
});

test('the throttle\'s wake-up ends the throttling even when it comes before the wall clock says so', {
  timeout: 10_000
}, async () => {
  const { state, capture, requeued, body, process, close } = await refusedObject([60]);
  try {
    await process({ kind: 'event', type: 'ADDED', object: body });
    assert.ok(capture.messages().some((m) => m.startsWith('Throttling for 60 seconds')), capture.messages().join('\n'));
    // A timer that fires early (Node's may, by a millisecond): here, all of the 60 seconds early.
    state.refusing = false;
    await process({ kind: 'wakeup', type: 'MODIFIED', object: body });
    assert.ok(
      capture.messages().includes('Throttling is over. Switching back to normal operations.'),
      capture.messages().join('\n'),
    );
    assert.ok(capture.messages().includes('Creation is processed: 1 succeeded; 0 failed.'));
    assert.deepEqual(requeued, [], 'not throttled again');
  } finally {
    await close();
  }
});

test('a cycle that outlives the stop ends quietly: its writes are refused, nothing is throttled or retried', {
  timeout: 10_000
}, async () => {
  let patches = 0;
  const server = await startServer(
    (req, res) => { if (req.method === 'PATCH') patches++; sendJson(res, 200, { metadata: { resourceVersion: '2' } }); }
  );
  const client = clientOf(server, { errorBackoffs: [] });
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
  const registry = new OperatorRegistry();
  const stop = new AbortController();
  // The operator stops while the handler runs (as past its exit timeout), and closes its client.
  registry.on.create(KopfExample, async function create_fn() { stop.abort(); client.close(); });
  const requeued: RawEvent[] = [];
  const proc = processorOf(
    registry,
    { client, settings, logger, stopping: stop.signal, enqueue: (_key, event) => requeued.push(event) },
  );
  const body = {
    apiVersion: 'kopf.dev/v1',
    kind: 'KopfExample',
    metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1' },
    spec: {},
  };
  try {
    await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: body }, new AbortController().signal);
    const messages = capture.messages();
    assert.ok(
      messages.some(
        (m) => m.startsWith('The cycle ended after the operator stopped: ') && m.endsWith('the API client is closed')
      ),
      messages.join('\n'),
    );
    assert.ok(!messages.some((m) => m.startsWith('Throttling')), messages.join('\n'));
    assert.equal(patches, 0);
    assert.deepEqual(requeued, []);
  } finally {
    proc.memories.clear();
    await server.close();
  }
});
