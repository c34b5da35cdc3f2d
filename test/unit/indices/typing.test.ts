/**
 * The types of an index flow from its function's return type, through the handle `on.index()`
 * returns, into what handlers read with `indices.get(handle)`: checked by the type check (a wrong
 * use is an expected error), and the handles by a test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { Pods } from '../../../runtime/structs/builtins.ts';
import type { Index, IndexHandle } from '../../../runtime/indices/indices.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;
function assertType<T extends true>(_proof?: T): void { /* compile-time only */ }

const registry = new OperatorRegistry();
const { on } = registry;

// A Map with tuple keys, as Kopf's example gives `{(namespace, name): running}`.
const isRunning = on.index(Pods, function is_running({ namespace, name, status }) {
  return new Map([[[namespace ?? '', name] as const, status.phase === 'Running']]);
});
// A plain object: one key per entry.
const byLabel = on.index(Pods, function by_label({ labels, name }) {
  return Object.fromEntries(Object.entries(labels).map(([label, value]) => [`${label}=${value}`, name]));
});
// Anything else is one value under the key `null`; async functions and "nothing" (null) too.
const phase = on.index(Pods, async function phase({ status }) { return status.phase ?? null; });
// An object literal: its keys and the union of its values.
const sizes = on.index(KopfExample, function sizes({ spec }) {
  return { items: spec.items?.length ?? 0, field: spec.field ?? '' };
});

assertType<Equal<typeof isRunning, IndexHandle<readonly [string, string], boolean>>>();
assertType<Equal<typeof byLabel, IndexHandle<string, string>>>();
assertType<Equal<typeof phase, IndexHandle<null, string>>>();
assertType<Equal<typeof sizes, IndexHandle<'items' | 'field', number | string>>>();

on.event(KopfExample, function reader({ indices }) {
  const running = indices.get(isRunning);
  assertType<Equal<typeof running, Index<readonly [string, string], boolean>>>();
  const store = running.get(['default', 'web']);
  for (const value of store ?? []) assertType<Equal<typeof value, boolean>>();
  // @ts-expect-error -- the keys of this index are (namespace, name) tuples, not text
  running.get('default/web');
  const untyped = indices.get('by_label');
  assertType<Equal<typeof untyped, Index<import('../../../runtime/indices/indices.ts').IndexKey, unknown>>>();
});

test('on.index returns a handle named by the handler id, which is not suffixed by a field', () => {
  const withField = on.index(KopfExample, function by_field({ spec }) { return spec.field; }, { field: 'spec.field' });
  const ids = ['is_running', 'by_label', 'phase', 'sizes', 'by_field'];
  assert.deepEqual([isRunning.id, byLabel.id, phase.id, sizes.id, withField.id], ids);
  const indexes = registry.resourceHandlers.filter((h) => h.kind === 'index');
  assert.deepEqual(indexes.map((h) => [h.id, h.errors]), ids.map((id) => [id, 'ignored']), 'errors: ignored');
});

test('an index id names it operator-wide: no two indexes share one, even of two resources; other handlers may', () => {
  const r = new OperatorRegistry();
  r.on.index(Pods, function by_owner() { return 1; });
  const again = () => r.on.index(KopfExample, function by_owner() { return 2; });
  assert.throws(again, /two indexes share the id 'by_owner'/);
  assert.throws(() => r.on.index(Pods, () => 1), /the handler has no name/);
  r.on.event(Pods, function by_owner() { /* an event handler may share an index's id: indexes store no progress */ });
});
