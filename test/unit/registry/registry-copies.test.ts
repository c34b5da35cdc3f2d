/**
 * Two copies of `kopf` in one process (a global `kopf` command running files that import their own
 * installed copy, a linked workspace) share the default registry: handlers registered through one
 * are served by the other. A module loaded from another URL is another copy with its own state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getDefaultRegistry, setDefaultRegistry, OperatorRegistry } from '../../../runtime/registry/registry.ts';
import type * as Registry from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

async function anotherCopy(): Promise<typeof Registry> {
  const url = new URL('../../../runtime/registry/registry.ts', import.meta.url);
  url.searchParams.set('copy', String(Math.random()));
  return import(url.href) as Promise<typeof Registry>;
}

test('handlers registered through another copy of the module land in the default registry this copy serves', async (
  t
) => {
  const previous = getDefaultRegistry();
  t.after(() => setDefaultRegistry(previous));
  setDefaultRegistry(new OperatorRegistry());
  const copy = await anotherCopy();
  assert.notEqual(copy.OperatorRegistry, OperatorRegistry, 'the copy is a module of its own');
  copy.getDefaultRegistry().on.create(KopfExample, function create_fn() { /* registered through the copy */ });
  assert.deepEqual(getDefaultRegistry().resourceHandlers.map((h) => h.id), ['create_fn']);

  const replaced = new copy.OperatorRegistry();
  copy.setDefaultRegistry(replaced);
  assert.equal(getDefaultRegistry(), replaced, 'a registry set through one copy is the default in the other');
});

test('declared permissions are kept in the registry, checked at declaration', () => {
  const registry = new OperatorRegistry();
  registry.requires(KopfExample, ['get', 'patch'], { subresource: 'status' });
  assert.deepEqual(registry.permissions, [{ resource: KopfExample, verbs: ['get', 'patch'], subresource: 'status' }]);
  assert.throws(() => registry.requires(KopfExample, []), /give the verbs as a non-empty list/);
  assert.throws(() => registry.requires('', ['get']), /the resource must be a descriptor/);
});
