/**
 * The shelf of watch events (runtime/processing/shelved-events.ts) against a fake API server: a
 * shelved event keeps the object's name, uid and version; reading it again asks for that version
 * or newer, gives the state read, and nothing for an object gone or replaced by another of its name;
 * a failed read is tried again. Deletions and this runtime's own requests are never shelved.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { eventShelf } from '../../../runtime/processing/shelved-events.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';
import { FRESH, processorOf } from './processor.ts';

/** A fake API server whose answers to GETs are `answers` in turn (the last repeating); it records the paths. */
async function shelfOn(t: TestContext, answers: [status: number, body: unknown][]) {
  const paths: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  /** Resolves once the server has answered `count` GETs. */
  const answered = (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve }));
  const server = await startServer((req, res) => {
    paths.push(`${req.path}?${req.query.toString()}`);
    res.once('finish', () => { for (const w of waiters) if (paths.length >= w.count) w.resolve(); });
    const [status, body] = answers.length > 1 ? answers.shift()! : answers[0]!;
    sendJson(res, status, body);
  });
  const client = clientOf(server);
  const stop = new AbortController();
  t.after(async () => { stop.abort(); client.close(); await server.close(); });
  const settings = defaultSettings({ posting: { enabled: false }, queueing: { errorDelays: [0.01] } });
  const logger = new Logger(new LogConfig({ sinks: [] }));
  const proc = processorOf(new OperatorRegistry(), { client, settings, logger, stopping: stop.signal });
  return { shelf: eventShelf(() => proc), paths, answered };
}

const newer: KubeObject = { ...FRESH, metadata: { ...FRESH.metadata, resourceVersion: '7' }, spec: { field: 'newer' } };

test('a shelved event is read again at its version or newer, and comes back with the state read', async (t) => {
  const { shelf, paths } = await shelfOn(t, [[200, newer]]);
  const shelved = shelf.shelve({ kind: 'event', type: null, object: FRESH });
  assert.deepEqual(shelved, { kind: 'event', type: null, namespace: 'default', name: 'x', uid: 'u1', version: '1' });
  const event = await shelf.unshelve(shelved!, new AbortController().signal);
  assert.deepEqual(event, { kind: 'event', type: null, object: newer });
  assert.deepEqual(paths, ['/apis/kopf.dev/v1/namespaces/default/kopfexamples/x?resourceVersion=1']);
});

test('an object gone, or replaced by another of its name, comes back as nothing', async (t) => {
  const other = { ...newer, metadata: { ...newer.metadata, uid: 'u2' } };
  for (const answer of [[404, { kind: 'Status', code: 404, reason: 'NotFound' }], [200, other]] as const) {
    const { shelf } = await shelfOn(t, [[answer[0], answer[1]]]);
    const shelved = shelf.shelve({ kind: 'event', type: 'MODIFIED', object: FRESH })!;
    assert.equal(await shelf.unshelve(shelved, new AbortController().signal), undefined, `answered ${answer[0]}`);
  }
});

test('a failed read is tried again until it succeeds; an aborted wait gives nothing', async (t) => {
  const refused: [number, unknown] = [403, { kind: 'Status', code: 403, reason: 'Forbidden' }];
  const { shelf, paths } = await shelfOn(t, [refused, refused, [200, newer]]);
  const shelved = shelf.shelve({ kind: 'event', type: 'ADDED', object: FRESH })!;
  assert.deepEqual(await shelf.unshelve(shelved, new AbortController().signal), {
    kind: 'event', type: 'ADDED', object: newer,
  });
  assert.equal(paths.length, 3);
  // A wait that ends (a newer event, a stop) while the reads keep failing: given up at the next one.
  const { shelf: failing, answered } = await shelfOn(t, [refused]);
  const ended = new AbortController();
  const reading = failing.unshelve(shelved, ended.signal);
  await answered(2);
  ended.abort();
  assert.equal(await reading, undefined);
});

test('deletions and this runtime\'s own requests are not shelved', async (t) => {
  const { shelf } = await shelfOn(t, [[200, newer]]);
  assert.equal(shelf.shelve({ kind: 'event', type: 'DELETED', object: FRESH }), undefined);
  for (const kind of ['wakeup', 'retry', 'indexed', 'reconcile', 'release'] as const) {
    assert.equal(shelf.shelve({ kind, type: 'MODIFIED', object: FRESH }), undefined, kind);
  }
});
