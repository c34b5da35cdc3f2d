/**
 * The surface generated handlers are written against (adopt, builtins, the client in the context):
 * this file compiles only while it holds, and registers as a handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry, adopt, builtins } from '../../../runtime/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

test('a create handler with a child ConfigMap, written against the agreed surface, type-checks and registers', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn({ body, spec, client, namespace }) {
    const child = adopt({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${body.metadata?.name}-data` },
      data: { greeting: spec.field ?? '' },
    }, body);
    await client.create(builtins.ConfigMaps, child);
    await client.create(builtins.Secrets, { metadata: { name: 'token' }, stringData: { token: 'x' } }, { namespace });
    await client.patch(builtins.ConfigMaps, child.metadata.name, { data: { x: 'y' } }, { namespace });
    const cm = await client.get(builtins.ConfigMaps, child.metadata.name, { namespace });
    const all = await client.list(builtins.ConfigMaps, { namespace, labelSelector: 'app=demo' });
    await client.delete(builtins.ConfigMaps, child.metadata.name, { namespace });
    return { child: child.metadata.name, data: cm.data, count: all.items.length };
  });
  registry.on.startup(async function startup_fn({ client }) {
    await client.list(builtins.Namespaces);
  });
  assert.deepEqual(registry.resourceHandlers.map((h) => h.id), ['create_fn']);
});
