/**
 * With settings.status.conditions, the status that tools read goes into the cycle's first write,
 * with the handlers' results: no cycle sends more requests for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { PermanentError } from '../../../runtime/structs/errors.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { DEFAULT_FINALIZER } from '../../../runtime/config/defaults.ts';
import { FRESH, processOnce } from './processor.ts';

type Json = { [key: string]: unknown };
const BODY: KubeObject = { ...FRESH, metadata: { ...FRESH.metadata, generation: 4 } };
const ON = { status: { conditions: true } };

function conditions(patch: unknown): Record<string, string> {
  const list = ((patch as Json).status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
  return Object.fromEntries((list ?? []).map((c) => [c.type, c.status]));
}

test('a creation: conditions and observedGeneration go with the result, in as many requests as without', async () => {
  const register = (registry: Parameters<Parameters<typeof processOnce>[0]>[0]) => {
    registry.on.create(KopfExample, function create_fn() { return { made: true }; });
  };
  const off = await processOnce(register, BODY);
  const on = await processOnce(register, BODY, {}, ON);
  assert.equal(on.requests.length, off.requests.length);
  const first = on.patches[0] as Json;
  assert.deepEqual((first.status as Json).create_fn, { made: true });
  assert.equal((first.status as Json).observedGeneration, 4);
  assert.deepEqual(conditions(first), { Reconciling: 'False', Stalled: 'False', Ready: 'True' });
  assert.ok(off.patches.every((patch) => !Object.keys(conditions(patch)).length));
});

test('a handler that fails for good: Stalled, with its message', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { throw new PermanentError('never'); });
  }, BODY, {}, ON);
  const first = patches[0] as Json;
  assert.deepEqual(conditions(first), { Reconciling: 'False', Stalled: 'True', Ready: 'False' });
  const stalled = ((first.status as Json).conditions as { type: string; message: string }[])[1]!;
  assert.equal(stalled.message, "Handler 'create_fn' failed permanently: never");
});

test('a finished deletion writes no conditions: the object goes', async () => {
  const deleted: KubeObject = {
    ...BODY, metadata: { ...BODY.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [DEFAULT_FINALIZER] },
  };
  const { patches } = await processOnce((registry) => {
    registry.on.delete(KopfExample, function delete_fn() { return 'gone'; });
  }, deleted, {}, ON);
  assert.ok(patches.length > 0);
  assert.ok(patches.every((patch) => !Object.keys(conditions(patch)).length), JSON.stringify(patches));
});

test("an object only a reconciler handles: its last run's outcome, in one write when it changes", async () => {
  let written: unknown[] = [];
  for (const standing of [{ id: 'r', kind: 'failed', message: 'no' }, { id: 'r', kind: 'done' }] as const) {
    const { patches } = await processOnce(() => undefined, BODY, {}, {
      ...ON,
      reconciling: {
        reconcile: async () => true, verdict: () => ({ required: false, holding: false }),
        standing: () => standing, forget: () => undefined, letGo: () => undefined,
      },
    });
    written = [...written, ...patches];
  }
  assert.deepEqual(written.map(conditions), [
    { Reconciling: 'False', Stalled: 'True', Ready: 'False' },
    { Reconciling: 'False', Stalled: 'False', Ready: 'True' },
  ]);
});
