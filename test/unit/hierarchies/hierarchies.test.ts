/**
 * The hierarchy helpers, as Kopf's: owner references, names after the owner's, the owner's
 * namespace and labels; the owner taken from the handled object inside a handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  adjustNamespace, adopt, appendOwnerReference, buildOwnerReference, harmonizeNaming, label, removeOwnerReference,
} from '../../../runtime/hierarchies/index.ts';
import { runWithOperatorContext, type OperatorContext } from '../../../runtime/posting/index.ts';
import type * as builtins from '../../../runtime/structs/builtins.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';

const OWNER = {
  apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
  metadata: { name: 'kex', namespace: 'ns1', uid: 'uid-1', labels: { app: 'demo', tier: 'db' } },
} as const;
const REFERENCE = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  name: 'kex',
  uid: 'uid-1',
  controller: true,
  blockOwnerDeletion: true,
};

test('an owner reference is built from the owner, and appended once per owner', () => {
  assert.deepEqual(buildOwnerReference(OWNER), REFERENCE);
  assert.deepEqual(
    buildOwnerReference(OWNER, { controller: false, blockOwnerDeletion: false }),
    { ...REFERENCE, controller: false, blockOwnerDeletion: false },
  );
  const child: KubeObject = {};
  appendOwnerReference(child, OWNER);
  appendOwnerReference(child, OWNER);
  appendOwnerReference(child, { ...OWNER, metadata: { ...OWNER.metadata, uid: 'uid-2' } });
  assert.deepEqual(child.metadata?.ownerReferences?.map((ref) => ref.uid), ['uid-1', 'uid-2']);
  removeOwnerReference(child, OWNER);
  assert.deepEqual(child.metadata?.ownerReferences?.map((ref) => ref.uid), ['uid-2']);
});

test('an owner without its identity is refused, naming what is missing', () => {
  assert.throws(() => buildOwnerReference({ metadata: { name: 'x' } }), /without apiVersion, kind, metadata\.uid/);
});

test('naming: a prefix from the owner by default, the name itself when strict, own names kept unless forced', () => {
  const [plain, strict, named, prefixed] = [
    {},
    {},
    { metadata: { name: 'mine' } },
    { metadata: { generateName: 'mine-' } },
  ] as KubeObject[];
  harmonizeNaming([plain!, named!, prefixed!], 'kex');
  harmonizeNaming(strict!, 'kex', { strict: true });
  assert.deepEqual([plain, strict, named, prefixed].map((o) => o?.metadata), [
    { generateName: 'kex-' }, { name: 'kex' }, { name: 'mine' }, { generateName: 'mine-' },
  ]);
  harmonizeNaming(named!, 'kex', { forced: true });
  assert.deepEqual(named!.metadata, { generateName: 'kex-' });
  harmonizeNaming(prefixed!, 'kex', { forced: true, strict: true });
  assert.deepEqual(prefixed!.metadata, { name: 'kex' });
});

test('namespaces: the owner\'s unless the child has one (or forced); none for a cluster-scoped owner', () => {
  const [plain, own] = [{}, { metadata: { namespace: 'mine' } }] as KubeObject[];
  adjustNamespace([plain!, own!], 'ns1');
  assert.deepEqual([plain!.metadata?.namespace, own!.metadata?.namespace], ['ns1', 'mine']);
  adjustNamespace(own!, 'ns1', { forced: true });
  assert.equal(own!.metadata?.namespace, 'ns1');
  const clusterChild: KubeObject = {};
  adjustNamespace(clusterChild, null);
  assert.equal(clusterChild.metadata?.namespace, undefined);
});

test('labels: kept unless forced, and set on nested templates that are there', () => {
  const deployment: builtins.Deployment = {
    metadata: { labels: { tier: 'web' } },
    spec: { selector: {}, template: { spec: { containers: [] } } },
  };
  label(deployment, { app: 'demo', tier: 'db' }, { nested: ['spec.template', 'spec.absent'] });
  assert.deepEqual(deployment.metadata?.labels, { tier: 'web', app: 'demo' });
  assert.deepEqual(deployment.spec?.template.metadata?.labels, { app: 'demo', tier: 'db' });
  assert.equal((deployment.spec as Record<string, unknown>).absent, undefined);
  label(deployment, { tier: 'db' }, { forced: true });
  assert.equal(deployment.metadata?.labels?.tier, 'db');
});

test('adopt: all four at once, returning the child typed as given', () => {
  const child = adopt(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data' }, data: { greeting: 'hi' } },
    OWNER,
  );
  // Typed: the literal's own fields and the metadata adoption guarantees.
  const name: string = child.metadata.name;
  const greeting: string = child.data.greeting;
  assert.equal(name, 'data');
  assert.equal(greeting, 'hi');
  assert.deepEqual(
    child.metadata,
    { name: 'data', namespace: 'ns1', labels: { app: 'demo', tier: 'db' }, ownerReferences: [REFERENCE] },
  );
  const [pod] = adopt(
    [{ apiVersion: 'v1', kind: 'Pod', spec: { containers: [] } } as builtins.Pod],
    OWNER,
    { strict: true },
  );
  assert.equal(pod!.metadata.name, 'kex');
  assert.equal(pod!.metadata.generateName, undefined);
  const unnamed = adopt({ metadata: { namespace: 'other', labels: { app: 'own' } } } as KubeObject, OWNER);
  assert.deepEqual(
    unnamed.metadata,
    { namespace: 'other', labels: { app: 'own', tier: 'db' }, generateName: 'kex-', ownerReferences: [REFERENCE] },
  );
});

test('adopt: a ring\'s owner gives its member label to the child, so that the child is in its replica\'s watch', () => {
  const owner = { ...OWNER, metadata: { ...OWNER.metadata, labels: { 'shard.kopf.zalando.org/ring': 'ring-1' } } };
  const child = adopt({ metadata: { name: 'data' } } as KubeObject, owner);
  assert.deepEqual(child.metadata.labels, { 'shard.kopf.zalando.org/ring': 'ring-1' });
});

test('inside a handler, the owner is the object being handled; outside, it must be given', () => {
  const context = { body: OWNER } as unknown as OperatorContext;
  const child = runWithOperatorContext(context, () => adopt({ kind: 'Secret' } as KubeObject));
  assert.deepEqual(
    child.metadata,
    { ownerReferences: [REFERENCE], generateName: 'kex-', namespace: 'ns1', labels: { app: 'demo', tier: 'db' } },
  );
  assert.throws(() => adopt({} as KubeObject), /The owner must be given explicitly outside of a handler/);
  assert.throws(() => label({} as KubeObject), /The owner must be given explicitly/);
});
