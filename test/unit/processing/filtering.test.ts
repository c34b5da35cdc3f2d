/**
 * Whether a handler is of interest is decided before the finalizer and before the wait for our own
 * writes; a `when` filter decides it knowing the change (reason, diff, old, new), as in Kopf —
 * against a fake API server, with the real processing code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FilterContext } from '../../../runtime/registry/contexts.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FRESH as fresh, processOnce } from './processor.ts';

test('a `when` filter decides interest knowing the change: the cause, the diff, the old and new essences', async () => {
  const seen: Pick<FilterContext<KubeObject>, 'reason' | 'diff' | 'old' | 'new'>[] = [];
  const { patches, messages } = await processOnce((registry) => {
    registry.on.delete(
      KopfExample,
      async function delete_fn() {},
      {
        when: ({ reason, diff, old, new: current }) => { seen.push({ reason, diff, old, new: current }); return true; }
      },
    );
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
