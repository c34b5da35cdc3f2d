/**
 * What the types rest on, on a real API server: a spec that the CRD's root does not require may
 * be missing from the object the API server delivers (handlers get `{}`, typed `Partial<…>`); one
 * that it requires may not; a field with a default may be left out when writing, even a required
 * one, on create and on replace; built-in kinds come with their spec and status, if only `{}`.
 * The kinds are those of the typed fixtures (test/generator/typed/claims.yaml).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createObject, isInvalid, replaceObject } from '../../../runtime/kube/index.ts';
import { builtins, type ResourceDescriptor } from '../../../runtime/index.ts';
import { useCluster } from '../use-cluster.ts';

const NS = 'presence';
const CLAIMS = join(import.meta.dirname, '../../generator/typed/claims.yaml');
const cluster = useCluster({ crds: [CLAIMS], namespace: NS });

const kind = (plural: string, kind: string): ResourceDescriptor => (
  { group: 'typed.kopf.dev', version: 'v1', plural, kind, scope: 'Namespaced' });
const Claims = kind('claims', 'Claim');
const LooseClaims = kind('looseclaims', 'LooseClaim');

test('a spec that the root does not require can be missing; one that it requires cannot', async () => {
  const loose = await createObject(cluster.client, LooseClaims, { metadata: { name: 'without-spec', namespace: NS } });
  assert.equal(loose['spec'], undefined);
  const refused = await createObject(cluster.client, Claims, { metadata: { name: 'without-spec', namespace: NS } })
    .catch((error: unknown) => error);
  assert.ok(isInvalid(refused), String(refused));
  assert.match(String(refused), /spec: Required value/);
});

test('defaulted fields, required or not, may be left out on create and replace: the API server fills them ' +
  'in', async () => {
  const created = await createObject(
    cluster.client,
    Claims,
    { metadata: { name: 'defaults', namespace: NS }, spec: { size: '1Gi' } },
  );
  assert.deepEqual(created['spec'], { size: '1Gi', storageClass: 'standard', mode: 'ReadWriteOnce' });
  const replaced = await replaceObject(cluster.client, Claims, { metadata: created.metadata, spec: { size: '2Gi' } });
  assert.deepEqual(replaced['spec'], { size: '2Gi', storageClass: 'standard', mode: 'ReadWriteOnce' });
});

test('built-in kinds come with their spec and status, if only {}', async () => {
  const namespace = await createObject(cluster.client, builtins.Namespaces, { metadata: { name: 'presence-ns' } });
  assert.ok(namespace.spec && namespace.status);
  const template = {
    metadata: { labels: { app: 'presence' } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  };
  const deployment = await createObject(cluster.client, builtins.Deployments, {
    metadata: { name: 'presence', namespace: NS }, spec: { selector: { matchLabels: { app: 'presence' } }, template },
  });
  assert.deepEqual(deployment.status, {});
});
