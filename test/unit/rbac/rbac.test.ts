/**
 * What `kopf rbac` derives from a registry: the served resources' verbs, the framework's needs,
 * declared permissions, and where each goes (cluster-wide or per namespace).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import * as builtins from '../../../runtime/structs/builtins.ts';
import {
  RbacError,
  operatorNeeds,
  rbacManifests,
  rbacResource,
  rulesOf,
  scopeNotes,
} from '../../../runtime/rbac/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Gadget } from '../../../examples/19-versions/generated/index.ts';
import * as v1alpha1 from '../../../examples/19-versions/generated/example.com/v1alpha1.ts';
import { gadgetV1alpha1 } from '../../../examples/19-versions/converters.ts';

const ACCOUNT = { name: 'op', namespace: 'ops' };

test('served resources (indexed ones too): list and watch; patch and the status subresource with changing handlers ' +
  'only', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { /* */ });
  registry.on.event(builtins.Pods, function spy() { /* */ });
  registry.on.index(builtins.ConfigMaps, function by_name({ name }) { return name; });
  assert.deepEqual(rulesOf(operatorNeeds(registry, { events: false, standalone: true })), [
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples'], verbs: ['get', 'list', 'watch', 'patch'] },
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples/status'], verbs: ['patch'] },
    { apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['list', 'watch'] },
  ]);
});

test('reconcilers: their resource patched; owned children kept (read, created, changed, deleted), watched ones ' +
  'listed and watched', () => {
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function reconcile_fn() { /* */ }, {
    owns: [builtins.ConfigMaps],
    watches: [{ resource: builtins.Secrets, metadataOnly: true, map: () => [] }],
  });
  assert.deepEqual(rulesOf(operatorNeeds(registry, { events: false, standalone: true })), [
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples'], verbs: ['get', 'list', 'watch', 'patch'] },
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples/status'], verbs: ['patch'] },
    {
      apiGroups: [''], resources: ['configmaps'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
  ]);
});

test('the framework: events, CRDs for resources named by strings, namespaces for patterns', () => {
  const registry = new OperatorRegistry();
  registry.on.create('kopfexamples.kopf.dev', function create_fn() { /* */ });
  const needs = operatorNeeds(registry, { namespaces: ['team-*'], standalone: true });
  const rules = rulesOf(needs);
  assert.deepEqual(
    rules.find((r) => r.resources.includes('events')),
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  );
  assert.deepEqual(
    rules.find((r) => r.apiGroups[0] === 'apiextensions.k8s.io'),
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
  );
  assert.deepEqual(
    rules.find((r) => r.resources.includes('namespaces')),
    { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
  );
  assert.ok(
    !rulesOf(operatorNeeds(registry, { namespaces: ['default'], standalone: true })).some(
      (r) => r.resources.includes('namespaces')
    ),
    'no namespaces for fixed names',
  );
});

test('declared permissions join the rules; verbs of one resource merge, resources with the same verbs share a ' +
  'rule', () => {
  const registry = new OperatorRegistry();
  registry.requires(builtins.ConfigMaps, ['get', 'create']);
  registry.requires(builtins.Secrets, ['create', 'get']);
  registry.requires(builtins.ConfigMaps, ['delete']);
  registry.requires(builtins.Pods, ['get'], { subresource: 'log' });
  assert.deepEqual(rulesOf(operatorNeeds(registry, { events: false, standalone: true })), [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'delete'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
    { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  ]);
});

test('names: built-in kinds by any of their names, others with their group; a bare unknown name is refused', () => {
  assert.deepEqual(
    rbacResource('deploy'),
    { group: 'apps', plural: 'deployments', clusterScoped: false, status: true },
  );
  assert.deepEqual(rbacResource('Namespace'), { group: '', plural: 'namespaces', clusterScoped: true, status: true });
  assert.deepEqual(rbacResource('kopfexamples.kopf.dev'), { group: 'kopf.dev', plural: 'kopfexamples' });
  assert.throws(
    () => rbacResource('kopfexamples'),
    (e: unknown) => e instanceof RbacError && /name it '<plural>\.<group>'/.test(e.message),
  );
});

test('manifests: cluster-wide, or per namespace with a ClusterRole only for cluster-scoped needs', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { /* */ });
  registry.requires(builtins.Namespaces, ['get']);
  const needs = operatorNeeds(registry, { standalone: true });
  const clusterWide = rbacManifests(needs, { serviceAccount: ACCOUNT });
  assert.deepEqual(
    clusterWide.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`),
    ['ServiceAccount/ops/op', 'ClusterRole//op', 'ClusterRoleBinding//op'],
  );
  assert.deepEqual(
    (clusterWide[2] as builtins.ClusterRoleBinding).subjects,
    [{ kind: 'ServiceAccount', name: 'op', namespace: 'ops' }],
  );

  const namespaced = rbacManifests(needs, { serviceAccount: ACCOUNT, namespaces: ['a', 'b'], name: 'kex' });
  assert.deepEqual(namespaced.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`), [
    'ServiceAccount/ops/op',
    'ClusterRole//kex',
    'ClusterRoleBinding//kex',
    'Role/a/kex',
    'RoleBinding/a/kex',
    'Role/b/kex',
    'RoleBinding/b/kex',
  ]);
  assert.deepEqual(
    (namespaced[1] as builtins.ClusterRole).rules,
    [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
  );
  assert.ok(!(namespaced[3] as builtins.Role).rules?.some((r) => r.resources?.includes('namespaces')));
});

test('peering: the peering objects of the scope unless standalone; leader election: the Lease, in its namespace ' +
  'only', () => {
  const registry = new OperatorRegistry();
  // An event handler only: the served resource's verbs differ from the peering objects', so the
  // peering rule stands alone.
  registry.on.event(KopfExample, function event_fn() { /* */ });
  const peering = (namespaces: string[]) => rulesOf(operatorNeeds(registry, { namespaces, events: false }))
    .find((rule) => rule.apiGroups[0] === 'kopf.dev' && rule.resources.some((r) => r.includes('peering')));
  const verbs = ['get', 'list', 'watch', 'patch'];
  assert.deepEqual(peering([]), { apiGroups: ['kopf.dev'], resources: ['clusterkopfpeerings'], verbs });
  assert.deepEqual(peering(['a']), { apiGroups: ['kopf.dev'], resources: ['kopfpeerings'], verbs });

  const needs = operatorNeeds(registry, { events: false, standalone: true, leaderElection: { namespace: 'ops' } });
  const objects = rbacManifests(needs, { serviceAccount: ACCOUNT });
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}`), [
    'ServiceAccount/ops', 'ClusterRole/', 'ClusterRoleBinding/', 'Role/ops', 'RoleBinding/ops',
  ]);
  assert.ok(
    !(objects[1] as builtins.ClusterRole).rules?.some((r) => r.resources?.includes('leases')),
    'no Leases cluster-wide',
  );
  assert.deepEqual((objects[3] as builtins.Role).rules, [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
  ]);
});

test('a ring\'s replica: its Leases and key in their namespace, get on the key\'s Secret only when the ring is named, '
  + 'and get and patch on every served resource', () => {
  const registry = new OperatorRegistry();
  registry.on.event(builtins.Pods, function spy() { /* */ });
  const needs = operatorNeeds(registry, { events: false, standalone: true, sharding: { namespace: 'ops', ring: 'r' } });
  const objects = rbacManifests(needs, { serviceAccount: ACCOUNT });
  assert.deepEqual((objects[1] as builtins.ClusterRole).rules, [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
  ]);
  assert.deepEqual((objects[3] as builtins.Role).rules, [
    {
      apiGroups: ['coordination.k8s.io'], resources: ['leases'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    },
    { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['r-ring-key'], verbs: ['get'] },
  ]);
  // Without the ring's name, its key's Secret cannot be named.
  const unnamedNeeds = operatorNeeds(registry, { events: false, standalone: true, sharding: { namespace: 'ops' } });
  const unnamed = rbacManifests(unnamedNeeds, { serviceAccount: ACCOUNT });
  assert.deepEqual((unnamed[3] as builtins.Role).rules?.slice(1), [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
  ]);
});

test('a ring\'s replica: list, watch and patch on a reconciler\'s owned resources (their labels follow the owners)',
  () => {
    const registry = new OperatorRegistry();
    registry.on.reconcile(KopfExample, function keep() { /* */ }, { owns: [builtins.ConfigMaps] });
    const sharding = { namespace: 'ops', ring: 'r' };
    const needs = operatorNeeds(registry, { events: false, standalone: true, sharding });
    const rules = (rbacManifests(needs, { serviceAccount: ACCOUNT })[1] as builtins.ClusterRole).rules ?? [];
    const verbs = new Set(rules.filter((r) => r.resources?.includes('configmaps')).flatMap((r) => r.verbs));
    for (const verb of ['list', 'watch', 'patch']) assert.ok(verbs.has(verb), `configmaps: ${[...verbs].join(', ')}`);
  });

test('requires() with a namespace: a Role there only, even for an operator that serves the whole cluster', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { /* */ });
  registry.requires(builtins.ConfigMaps, ['create', 'patch', 'delete'], { namespace: 'children' });
  const needs = operatorNeeds(registry, { events: false, standalone: true });
  const objects = rbacManifests(needs, { serviceAccount: ACCOUNT });
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}`), [
    'ServiceAccount/ops', 'ClusterRole/', 'ClusterRoleBinding/', 'Role/children', 'RoleBinding/children',
  ]);
  assert.ok(
    !(objects[1] as builtins.ClusterRole).rules?.some((r) => r.resources?.includes('configmaps')),
    'no ConfigMaps cluster-wide',
  );
  assert.deepEqual((objects[3] as builtins.Role).rules, [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] },
  ]);
  // Served in named namespaces: the fixed namespace's Role stands beside theirs.
  const served = rbacManifests(needs, { serviceAccount: ACCOUNT, namespaces: ['shop'] });
  assert.deepEqual(served.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}`), [
    'ServiceAccount/ops', 'Role/shop', 'RoleBinding/shop', 'Role/children', 'RoleBinding/children',
  ]);
  assert.ok(!(served[1] as builtins.Role).rules?.some((r) => r.resources?.includes('configmaps')));
});

test('requires() with a namespace: refused for a cluster-scoped resource, and for a name no namespace can have', () => {
  const registry = new OperatorRegistry();
  registry.requires(builtins.Namespaces, ['get'], { namespace: 'ops' });
  assert.throws(
    () => operatorNeeds(registry),
    (e: unknown) => e instanceof RbacError && /namespaces are cluster-scoped/.test(e.message),
  );
  for (const namespace of ['', 'Ops', 'a/b', '../x', 'x'.repeat(64)]) {
    assert.throws(
      () => new OperatorRegistry().requires(builtins.ConfigMaps, ['get'], { namespace }),
      /is not a namespace's name/,
      namespace,
    );
  }
});

test('admission handlers: the managed webhook configurations, create and patch; patches narrowed to a name; or ' +
  'none', () => {
  const webhooks = (options: { webhookManaged?: boolean | string }) => {
    const registry = new OperatorRegistry();
    registry.on.validate(KopfExample, function check() { /* */ });
    return rulesOf(operatorNeeds(registry, { events: false, standalone: true, ...options }))
      .filter((rule) => rule.apiGroups[0] === 'admissionregistration.k8s.io');
  };
  const resources = ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'];
  assert.deepEqual(
    webhooks({}),
    [{ apiGroups: ['admissionregistration.k8s.io'], resources, verbs: ['create', 'patch'] }],
  );
  // A creation's path names no object: RBAC cannot narrow a `create` to a name.
  assert.deepEqual(webhooks({ webhookManaged: 'auto.kopf.dev' }), [
    { apiGroups: ['admissionregistration.k8s.io'], resources, verbs: ['create'] },
    { apiGroups: ['admissionregistration.k8s.io'], resources, resourceNames: ['auto.kopf.dev'], verbs: ['patch'] },
  ]);
  assert.deepEqual(webhooks({ webhookManaged: false }), []);
  const withoutAdmission = new OperatorRegistry();
  withoutAdmission.on.create(KopfExample, function create_fn() { /* */ });
  assert.ok(
    !rulesOf(operatorNeeds(withoutAdmission)).some((rule) => rule.apiGroups[0] === 'admissionregistration.k8s.io')
  );
  // Cluster-scoped: in the ClusterRole, also for an operator of named namespaces.
  const registry = new OperatorRegistry();
  registry.on.mutate(KopfExample, function inject() { /* */ });
  const objects = rbacManifests(
    operatorNeeds(registry, { namespaces: ['a'], events: false, standalone: true }),
    { serviceAccount: ACCOUNT, namespaces: ['a'] },
  );
  assert.deepEqual(objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
});

test('scope notes: a cluster-wide printout says which namespaced permissions hold in every namespace, and why', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { /* */ });
  registry.requires(builtins.ConfigMaps, ['create']);
  registry.requires(builtins.Secrets, ['get'], { namespace: 'ops' });
  registry.requires(builtins.Namespaces, ['get']);
  const needs = operatorNeeds(registry, { standalone: true });
  const [first, ...rest] = scopeNotes(needs);
  assert.match(
    first!,
    /^Cluster-wide, the ClusterRole grants kopfexamples, kopfexamples\/status, events, configmaps in every namespace/,
  );
  assert.match(rest.join(' '), /RBAC cannot grant "where the served objects are"/);
  assert.match(rest.join(' '), /serve named namespaces \(-n NS\)/);
  assert.deepEqual(scopeNotes(needs, ['team-*']).length, 4, 'patterns are cluster-wide too');
  assert.deepEqual(scopeNotes(needs, ['shop']), [], 'named namespaces: Roles, nothing to say');
});

test('rules keep what the needs say as it is: names whole, resources of one group and verbs together', () => {
  const need = (resource: string, verbs: string[], resourceNames?: string[]) => (
    { group: 'example.com', resource, verbs, clusterScoped: false, why: 'test', resourceNames }
  );
  assert.deepEqual(rulesOf([
    need('widgets', ['get']),
    need('gadgets', ['get']),
    need('widgets', ['get'], ['b', 'a,b', 'b']),
    need('widgets', ['patch'], ['a,b', 'b']),
  ]), [
    { apiGroups: ['example.com'], resources: ['widgets', 'gadgets'], verbs: ['get'] },
    { apiGroups: ['example.com'], resources: ['widgets'], resourceNames: ['a,b', 'b'], verbs: ['get', 'patch'] },
  ]);
});

test('converters: patch of their CRDs, by name, unless the webhook is not managed', () => {
  const registry = new OperatorRegistry();
  registry.on.convert(Gadget, v1alpha1.Gadget, gadgetV1alpha1);
  assert.deepEqual(rulesOf(operatorNeeds(registry, { events: false, standalone: true })), [
    {
      apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'],
      resourceNames: ['gadgets.example.com'], verbs: ['patch'],
    },
  ]);
  assert.deepEqual(operatorNeeds(registry, { events: false, standalone: true, webhookManaged: false }), []);
});
