/**
 * Handler progress on the object within one cycle: a cycle that ends in the pass that ran its
 * handlers leaves no progress record (Kopf stores it and purges it in the same patch), while one
 * that goes on stores it; a custom prefix still gets its marker, as Kopf's storing leaves it; a
 * storage of the user's own is called as Kopf calls it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import { AnnotationsProgressStorage } from '../../../runtime/progress/annotations.ts';
import { recordingStorage } from '../progress/recording-storage.ts';
import { FRESH, processOnce } from './processor.ts';

type Json = { [key: string]: unknown };

/** The annotations sent, merged from all patches. */
function annotationsOf(patches: unknown[]): Json {
  return Object.assign(
    {},
    ...patches.map((patch) => ((patch as Json).metadata as { annotations?: Json } | undefined)?.annotations ?? {})
  ) as Json;
}

test('a cycle done in its first pass sends the diff-base and the results, no progress record', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { return { ok: 1 }; });
  }, FRESH);
  assert.deepEqual(Object.keys(annotationsOf(patches)), ['kopf.zalando.org/last-handled-configuration']);
  assert.deepEqual(patches.map((patch) => (patch as Json).status).filter(Boolean), [{ create_fn: { ok: 1 } }]);
});

test('a cycle that goes on stores the progress of its handlers', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { throw new TemporaryError('not yet', { delay: 60 }); });
  }, FRESH);
  const annotations = annotationsOf(patches);
  assert.deepEqual(Object.keys(annotations), ['kopf.zalando.org/create_fn']);
  assert.match(
    String(annotations['kopf.zalando.org/create_fn']),
    /"retries":1,"success":false,"failure":false,"message":"not yet"/,
  );
});

test('with a custom prefix, a cycle done in its first pass leaves the prefix’s marker, as Kopf does', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() {});
  }, FRESH, { progressStorage: new AnnotationsProgressStorage({ prefix: 'my-op.example.com' }) });
  assert.deepEqual(
    Object.keys(annotationsOf(patches)).sort(),
    ['kopf.zalando.org/last-handled-configuration', 'my-op.example.com/kopf-managed'],
  );
});

test('a storage of the user’s own sees Kopf’s order: the records stored and flushed, then purged and ' +
  'flushed', async () => {
  const { storage, calls } = recordingStorage();
  await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() {});
  }, FRESH, { progressStorage: storage });
  assert.deepEqual(calls, ['store create_fn', 'flush', 'purge create_fn', 'flush']);
});
