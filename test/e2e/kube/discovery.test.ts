/**
 * Resolving resources by name against a real API server's discovery: every written form, the core
 * group's precedence, ambiguity, absence, and CRDs that appear at run time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KubeClient, UnresolvedResourceError, resolveResource } from '../../../runtime/kube/index.ts';
import { startControlPlane } from '../../../runtime/testing.ts';
import type { ControlPlane } from '../../../runtime/testing.ts';

const CRD = new URL('../../../examples/crd.yaml', import.meta.url).pathname;
let cp: ControlPlane;
let client: KubeClient;

function crd(group: string, plural: string, kind: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced', shortNames: string[] = []): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

before(async () => {
  cp = await startControlPlane();
  await cp.installCrds([
    CRD,
    crd('one.example.com', 'widgets', 'Widget', 'Cluster'),
    crd('two.example.com', 'widgets', 'Widget'),
    crd('shadow.example.com', 'configmaps', 'ConfigMap'),
  ]);
  client = KubeClient.fromKubeConfig(cp.kubeconfig);
});

after(async () => {
  client?.close();
  await cp?.stop();
});

test('KopfExample resolves from each name form', async () => {
  for (const selector of ['kopfexamples', 'KopfExample', 'kopfexample', 'kex', 'kopfexes', 'kopfexamples.kopf.dev', 'kopfexamples.v1.kopf.dev', 'kopf.dev/v1/kopfexamples', 'kopf.dev/kex']) {
    const r = await resolveResource(client, selector);
    assert.deepEqual(
      [r.group, r.version, r.plural, r.singular, r.kind, r.scope, r.subresources],
      ['kopf.dev', 'v1', 'kopfexamples', 'kopfexample', 'KopfExample', 'Namespaced', ['status']],
      selector,
    );
    assert.deepEqual([...(r.shortNames ?? [])].sort(), ['kexes', 'kex', 'kopfex', 'kopfexes'].sort());
    assert.ok(r.verbs.includes('watch') && r.verbs.includes('patch'));
  }
});

test('built-in resources resolve, and the core group wins over a CRD of the same name', async () => {
  const cm = await resolveResource(client, 'configmaps');
  assert.deepEqual([cm.group, cm.version, cm.kind], ['', 'v1', 'ConfigMap']);
  const shadow = await resolveResource(client, 'configmaps.shadow.example.com');
  assert.equal(shadow.group, 'shadow.example.com');
  const deployments = await resolveResource(client, 'deploy');
  assert.deepEqual([deployments.group, deployments.version, deployments.plural], ['apps', 'v1', 'deployments']);
  const ns = await resolveResource(client, 'v1/namespaces');
  assert.equal(ns.scope, 'Cluster');
  const crds = await resolveResource(client, 'crd');
  assert.deepEqual([crds.group, crds.plural, crds.scope], ['apiextensions.k8s.io', 'customresourcedefinitions', 'Cluster']);
});

test('an ambiguous name and an absent one are errors that say why', async () => {
  const ambiguous = await resolveResource(client, 'widgets').catch((e: unknown) => e);
  assert.ok(ambiguous instanceof UnresolvedResourceError, String(ambiguous));
  assert.equal(ambiguous.reason, 'ambiguous');
  assert.deepEqual(ambiguous.candidates.map((c) => c.group).sort(), ['one.example.com', 'two.example.com']);
  assert.match(ambiguous.message, /widgets\.one\.example\.com\/v1.*widgets\.two\.example\.com\/v1|widgets\.two\.example\.com\/v1.*widgets\.one\.example\.com\/v1/);
  const one = await resolveResource(client, 'widgets.one.example.com');
  assert.equal(one.scope, 'Cluster');

  const absent = await resolveResource(client, 'gadgets').catch((e: unknown) => e);
  assert.ok(absent instanceof UnresolvedResourceError, String(absent));
  assert.equal(absent.reason, 'absent');
  assert.match(absent.message, /"gadgets" is not served/);
  await assert.rejects(resolveResource(client, 'kopf.dev/v2/kopfexamples'), UnresolvedResourceError);
});

test('a CRD created after the first lookup resolves: a miss refreshes the cache', async () => {
  await resolveResource(client, 'kex');
  await cp.installCrds([crd('late.example.com', 'latecomers', 'Latecomer', 'Namespaced', ['late'])]);
  const late = await resolveResource(client, 'late');
  assert.deepEqual([late.group, late.plural], ['late.example.com', 'latecomers']);
});
