/**
 * Writes the API server refuses as too large (its 256 KiB limit on an object's annotations, its
 * 413 for large bodies): a handler that succeeded does not run again because its records could not
 * be written; the refusal is reported once, naming what was too large; nothing is retried blindly.
 * Against a fake API server that keeps the object and enforces the annotations' limit as the real
 * one does (the e2e test runs the same against kube-apiserver).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { ERROR, LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { applyMergePatch, type Fields } from '../../../runtime/structs/patches.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { clientOf, sendJson, startServer, status } from '../kube/fake-server.ts';
import { FRESH, processorOf } from './processor.ts';

const LIMIT = 256 * 1024;
const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function annotationsSize(object: Fields): number {
  const annotations = (object.metadata as { annotations?: Record<string, string> }).annotations ?? {};
  return Object.entries(annotations).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
}

/**
 * An operator with one create handler, processing `body` against a fake API server that keeps
 * the object, refuses merge patches that take its annotations over the limit (422, as the API
 * server words it) and, with `statusLimit`, status patches larger than that (413).
 */
async function operatorOn(body: KubeObject, options: { statusLimit?: number; handlers?: number; fail?: string } = {}) {
  const object = copyJson(body) as Fields;
  let version = 1;
  const server = await startServer((req, res) => {
    if (options.statusLimit !== undefined && req.path.endsWith('/status') && req.body.length > options.statusLimit) {
      sendJson(res, 413, status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
      return;
    }
    const candidate = copyJson(object);
    applyMergePatch(candidate, JSON.parse(req.body) as unknown);
    if (annotationsSize(candidate) > LIMIT) {
      const cause = {
        reason: 'FieldValueTooLong',
        message: `Too long: must have at most ${LIMIT} bytes`,
        field: 'metadata.annotations',
      };
      sendJson(
        res,
        422,
        status(
          422,
          'Invalid',
          `KopfExample.kopf.dev "x" is invalid: metadata.annotations: Too long: must have at most ${LIMIT} bytes`,
          { causes: [cause] },
        ),
      );
      return;
    }
    Object.assign(object, candidate);
    applyMergePatch(object, { metadata: { resourceVersion: String(++version) } });
    sendJson(res, 200, object);
  });
  const client = clientOf(server, { errorBackoffs: [] });
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0 } });
  const registry = new OperatorRegistry();
  const calls: string[] = [];
  registry.on.create(KopfExample, function create_fn() {
    calls.push('create_fn');
    if (options.fail) throw new TemporaryError(options.fail, { delay: 1 });
    return { done: true };
  });
  if (options.handlers === 2) registry.on.create(KopfExample, function create_b() { calls.push('create_b'); });
  const stop = new AbortController();
  const requeued: RawEvent[] = [];
  /** A processor as a (re)started operator has it: its memory of objects is its own. */
  const processor = () => processorOf(
    registry,
    { client, settings, logger, stopping: stop.signal, enqueue: (_key, event) => requeued.push(event) },
  );
  let proc = processor();
  return {
    object, calls, capture, requeued, server,
    /** Processes the object as the API server now has it (the echo of the last write). */
    process: (type: RawEvent['type'] = 'MODIFIED') => processEvent(
      proc,
      'u1',
      { kind: 'event', type, object: copyJson(object) as KubeObject },
      new AbortController().signal,
    ),
    restart: () => { proc.memories.clear(); proc = processor(); },
    errors: () => capture.records.filter((record) => record.level >= ERROR).map((record) => record.message),
    close: async () => { stop.abort(); proc.memories.clear(); client.close(); await server.close(); },
  };
}

/** A KopfExample as `kubectl apply` leaves it: its spec, and a copy of it in an annotation. */
function applied(specBytes: number, lastApplied = specBytes): KubeObject {
  const spec = { field: 'x'.repeat(specBytes) };
  return { ...FRESH, metadata: { ...FRESH.metadata, annotations: { [LAST_APPLIED]: 'y'.repeat(lastApplied) } }, spec };
}

test('a diff-base too large for the annotations: the handler runs once, its records stay, the error names the ' +
  'annotation', async () => {
  const op = await operatorOn(applied(150_000));
  try {
    await op.process('ADDED');
    assert.deepEqual(op.calls, ['create_fn']);
    const annotations = (op.object.metadata as { annotations: Record<string, string> }).annotations;
    assert.equal(annotations[DIFF_BASE], undefined, 'the diff-base is not stored');
    assert.match(annotations['kopf.zalando.org/create_fn'] ?? '', /"success":true/, 'the record of the success stays');
    assert.deepEqual((op.object.status as Fields).create_fn, { done: true }, 'the result is written');
    const [error, ...more] = op.errors();
    assert.deepEqual(more, []);
    assert.match(
      error!,
      /^The diff-base does not fit into the object's annotations: kopf\.zalando\.org\/last-handled-configuration would be 14\d\.\d KiB, all annotations 29\d\.\d KiB, over the API server's limit of 256\.0 KiB\. /, // lint-ignore: a regular expression cannot wrap
    );
    assert.match(error!, /StatusDiffBaseStorage/);

    // The echo of the write, and later events of the same state: nothing runs, nothing is said again.
    await op.process();
    await op.process();
    assert.deepEqual(op.calls, ['create_fn']);
    assert.equal(op.errors().length, 1);
    // A restarted operator reads the records: the handler is done.
    op.restart();
    await op.process(null);
    assert.deepEqual(op.calls, ['create_fn'], 'not run again after a restart either');
    assert.ok(!op.capture.messages().some((message) => message.startsWith('Throttling')));
    assert.deepEqual(op.requeued, [], 'no retry is scheduled');
  } finally {
    await op.close();
  }
});

test('records refused as too large by the API server: the handler does not run again on its echo; reported ' +
  'once', async () => {
  // Two handlers, one per cycle: the first one's record (and the second one's) cannot be added.
  const op = await operatorOn(applied(1000, LIMIT - 200), { handlers: 2 });
  try {
    await op.process('ADDED');
    assert.deepEqual(op.calls, ['create_fn']);
    assert.deepEqual((op.object.status as Fields).create_fn, { done: true }, 'the work went first, and is written');
    const [error, ...more] = op.errors();
    assert.deepEqual(more, []);
    assert.match(
      error!,
      /^The API server refused to write the annotation kopf\.zalando\.org\/create_\w+ \(0\.\d KiB\) as too large: .*Too long: must have at most 262144 bytes\. The handlers are not run again until the object changes; /, // lint-ignore: a regular expression cannot wrap
    );
    await op.process();
    await op.process();
    assert.deepEqual(op.calls, ['create_fn'], 'the echo of the result does not run the handler again');
    assert.equal(op.errors().length, 1);
    assert.ok(!op.capture.messages().some((message) => message.startsWith('Throttling')));
    assert.deepEqual(op.requeued, []);

    // A change of the object is handled again.
    (op.object.spec as Fields).field = 'changed';
    await op.process();
    assert.deepEqual(op.calls, ['create_fn', 'create_fn']);
  } finally {
    await op.close();
  }
});

test('a progress record too large for the annotations (a huge error message) is reported once, not retried ' +
  'blindly', async () => {
  const op = await operatorOn(FRESH, { fail: 'z'.repeat(300_000) });
  try {
    await op.process('ADDED');
    assert.deepEqual(op.calls, ['create_fn']);
    const [failure, error, ...more] = op.errors();
    assert.match(failure!, /^Handler 'create_fn' failed temporarily: z+$/);
    assert.deepEqual(more, []);
    assert.match(
      error!,
      /^The API server refused to write the annotation kopf\.zalando\.org\/create_fn \(29\d\.\d KiB\) as too large: /,
    );
    assert.ok(!op.capture.messages().some((message) => message.startsWith('Throttling')));
    assert.deepEqual(op.requeued, [], 'no retry is scheduled: it would be refused again');
  } finally {
    await op.close();
  }
});

test('a result refused with 413 is reported once and not retried', async () => {
  const op = await operatorOn(FRESH, { statusLimit: 10 });
  try {
    await op.process('ADDED');
    await op.process();
    assert.deepEqual(op.calls, ['create_fn']);
    assert.deepEqual(op.errors().map((message) => message.replace(/\. The handlers.*/, '')), [
      'The API server refused to write the status as too large: Request entity too large: limit is 3145728',
    ]);
    assert.ok(!op.capture.messages().some((message) => message.startsWith('Throttling')));
    assert.deepEqual(op.requeued, []);
  } finally {
    await op.close();
  }
});
