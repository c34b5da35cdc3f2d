/**
 * Resolving resources by name against a real API server's discovery: every written form, the core
 * group's precedence, ambiguity, absence, and CRDs that appear at run time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnresolvedResourceError, resolveResource } from '../../../runtime/kube/index.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';

function crd(
  group: string,
  plural: string,
  kind: string,
  scope: 'Namespaced' | 'Cluster' = 'Namespaced',
  shortNames: string[] = [],
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        }
      ],
    },
  };
}

const cluster = useCluster({
  crds: [
    CRD_YAML,
    crd('one.example.com', 'widgets', 'Widget', 'Cluster'),
    crd('two.example.com', 'widgets', 'Widget'),
    crd('shadow.example.com', 'configmaps', 'ConfigMap'),
  ],
});

test('KopfExample resolves from each name form', async () => {
  for (
    const selector of [
      'kopfexamples',
      'KopfExample',
      'kopfexample',
      'kex',
      'kopfexes',
      'kopfexamples.kopf.dev',
      'kopfexamples.v1.kopf.dev',
      'kopf.dev/v1/kopfexamples',
      'kopf.dev/kex',
    ]
  ) {
    const r = await resolveResource(cluster.client, selector);
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
  const cm = await resolveResource(cluster.client, 'configmaps');
  assert.deepEqual([cm.group, cm.version, cm.kind], ['', 'v1', 'ConfigMap']);
  const shadow = await resolveResource(cluster.client, 'configmaps.shadow.example.com');
  assert.equal(shadow.group, 'shadow.example.com');
  const deployments = await resolveResource(cluster.client, 'deploy');
  assert.deepEqual([deployments.group, deployments.version, deployments.plural], ['apps', 'v1', 'deployments']);
  const ns = await resolveResource(cluster.client, 'v1/namespaces');
  assert.equal(ns.scope, 'Cluster');
  const crds = await resolveResource(cluster.client, 'crd');
  assert.deepEqual(
    [crds.group, crds.plural, crds.scope],
    ['apiextensions.k8s.io', 'customresourcedefinitions', 'Cluster'],
  );
});

test('an ambiguous name and an absent one are errors that say why', async () => {
  const ambiguous = await resolveResource(cluster.client, 'widgets').catch((e: unknown) => e);
  assert.ok(ambiguous instanceof UnresolvedResourceError, String(ambiguous));
  assert.equal(ambiguous.reason, 'ambiguous');
  assert.deepEqual(ambiguous.candidates.map((c) => c.group).sort(), ['one.example.com', 'two.example.com']);
  assert.match(
    ambiguous.message,
    /widgets\.one\.example\.com\/v1.*widgets\.two\.example\.com\/v1|widgets\.two\.example\.com\/v1.*widgets\.one\.example\.com\/v1/, // lint-ignore: a regular expression cannot wrap
  );
  const one = await resolveResource(cluster.client, 'widgets.one.example.com');
  assert.equal(one.scope, 'Cluster');

  const absent = await resolveResource(cluster.client, 'gadgets').catch((e: unknown) => e);
  assert.ok(absent instanceof UnresolvedResourceError, String(absent));
  assert.equal(absent.reason, 'absent');
  assert.match(absent.message, /"gadgets" is not served/);
  await assert.rejects(resolveResource(cluster.client, 'kopf.dev/v2/kopfexamples'), UnresolvedResourceError);
});

test('a CRD created after the first lookup resolves: a miss refreshes the cache', async () => {
  await resolveResource(cluster.client, 'kex');
  await cluster.cp.installCrds([crd('late.example.com', 'latecomers', 'Latecomer', 'Namespaced', ['late'])]);
  const late = await resolveResource(cluster.client, 'late');
  assert.deepEqual([late.group, late.plural], ['late.example.com', 'latecomers']);
});
