/**
 * The reconciler's reads of its related objects without a cluster: what the watches bring is kept
 * by name and, for owned resources, by the controller's uid; deletions and changes of the owner
 * are followed; label selectors select as the API server's do; hostile objects are ignored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RelatedObjects } from '../../../runtime/reconciling/related-cache.ts';
import { LabelSelectorError, labelMatcher } from '../../../runtime/reconciling/label-selectors.ts';
import { controllerUid } from '../../../runtime/reconciling/related-requests.ts';
import { ConfigMaps, Secrets, Pods } from '../../../runtime/structs/builtins.ts';
import type { RelatedResource } from '../../../runtime/registry/handlers.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

const owns: RelatedResource = { resource: ConfigMaps, metadataOnly: false, map: null };
const slim: RelatedResource = { resource: Pods, metadataOnly: true, map: null };
const watches: RelatedResource = { resource: Secrets, metadataOnly: false, map: () => [] };

const ref = (uid: string) => ({ apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'x', uid, controller: true });
function child(name: string, owner: string | undefined, data: Record<string, string> = {}): KubeObject {
  const metadata = { name, namespace: 'ns', ownerReferences: owner ? [ref(owner)] : [] };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data } as KubeObject;
}

const cache = () => new RelatedObjects([owns, slim], [watches], (o) => controllerUid(o, KopfExample), 'Reconciler');

test('owned children are read by their owner\'s uid, as the latest event brought them', () => {
  const related = cache();
  related.seen(owns, child('a', 'u1', { v: '1' }), null);
  related.seen(owns, child('b', 'u1'), 'ADDED');
  related.seen(owns, child('c', 'u2'), 'ADDED');
  related.seen(owns, child('d', undefined), 'ADDED');
  assert.deepEqual(related.owned('u1', ConfigMaps).map((o) => o.metadata?.name).sort(), ['a', 'b']);
  related.seen(owns, child('a', 'u1', { v: '2' }), 'MODIFIED');
  assert.deepEqual(related.owned('u1', ConfigMaps).find((o) => o.metadata?.name === 'a')?.data, { v: '2' });
  related.seen(owns, child('b', 'u2'), 'MODIFIED'); // adopted by another owner
  related.seen(owns, child('a', 'u1'), 'DELETED');
  assert.deepEqual(related.owned('u1', ConfigMaps), []);
  assert.deepEqual(related.owned('u2', ConfigMaps).map((o) => o.metadata?.name).sort(), ['b', 'c']);
  assert.deepEqual(related.ownedMetadata('u2', ConfigMaps).map((o) => o.kind), ['ConfigMap', 'ConfigMap']);
  assert.equal(related.get(ConfigMaps, 'd', 'ns')?.metadata?.name, 'd', 'unowned ones are kept for reads by name');
});

test('a resource owned as metadata is read as metadata; a resource not related is refused', () => {
  const related = cache();
  related.seen(slim, { metadata: { name: 'p', namespace: 'ns', ownerReferences: [ref('u1')] } } as KubeObject, null);
  assert.throws(() => related.owned('u1', Pods), /as metadata only: read them with ownedMetadata/);
  assert.equal(related.ownedMetadata('u1', Pods)[0]?.metadata.name, 'p');
  assert.throws(() => related.owned('u1', Secrets), /reads the resources in `owns`/);
  assert.throws(() => related.get(KopfExample, 'x'), /only the resources in `owns` and `watches`/);
});

test('watched objects are read by name and listed by namespace and label selector', () => {
  const related = cache();
  const secret = (name: string, namespace: string, labels: Record<string, string>) =>
    ({ metadata: { name, namespace, labels } }) as KubeObject;
  related.seen(watches, secret('s1', 'ns', { app: 'a', tier: 'web' }), null);
  related.seen(watches, secret('s2', 'ns', { app: 'b' }), null);
  related.seen(watches, secret('s3', 'other', { app: 'a' }), null);
  const names = (list: readonly KubeObject[]) => list.map((o) => o.metadata?.name).sort();
  assert.equal(related.get(Secrets, 's1', 'ns')?.metadata?.name, 's1');
  assert.equal(related.get(Secrets, 's1', 'other'), undefined);
  assert.deepEqual(names(related.list(Secrets)), ['s1', 's2', 's3']);
  assert.deepEqual(names(related.list(Secrets, { namespace: 'ns' })), ['s1', 's2']);
  assert.deepEqual(names(related.list(Secrets, { labelSelector: 'app=a' })), ['s1', 's3']);
  assert.deepEqual(names(related.list(Secrets, { namespace: 'ns', labelSelector: 'app in (a, b),!tier' })), ['s2']);
  related.seen(watches, secret('s2', 'ns', {}), 'DELETED');
  assert.deepEqual(names(related.list(Secrets, { namespace: 'ns' })), ['s1']);
  // What the cluster sends is not trusted: objects without a name are not kept, and nothing throws.
  for (const hostile of [{}, { metadata: null }, { metadata: { name: 5 } }, { metadata: 'x' }]) {
    related.seen(watches, hostile as unknown as KubeObject, 'ADDED');
  }
  assert.equal(related.size, 2);
});

test('label selectors select as the API server\'s do', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['a=b', { a: 'b' }, true], ['a==b', { a: 'b' }, true], ['a=b', { a: 'c' }, false], ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false], ['a', { a: '' }, true], ['!a', { a: '' }, false], ['!a', {}, true],
    ['a in (x, y)', { a: 'y' }, true], ['a in (x)', {}, false], ['a notin (x)', {}, true],
    ['a notin (x)', { a: 'x' }, false], ['a=b,c', { a: 'b' }, false], ['', { a: 'b' }, true],
    ['constructor', {}, false], ['a=', { a: '' }, true],
  ];
  for (const [selector, labels, expected] of cases) {
    assert.equal(labelMatcher(selector)(labels), expected, `${selector} on ${JSON.stringify(labels)}`);
  }
  for (const malformed of ['a b', 'a in x', '=b', 'a=(b)']) {
    assert.throws(() => labelMatcher(malformed), LabelSelectorError, malformed);
  }
});
