/**
 * The RBAC objects for an operator's needs: a ServiceAccount, and a ClusterRole with its binding
 * when it serves the whole cluster (or namespaces by pattern, which come and go), else a Role with
 * its binding in each namespace it serves and a ClusterRole only for what is cluster-scoped.
 */
import type * as builtins from '../structs/builtins.ts';
import type { KubeObject } from '../structs/resources.ts';
import { isGlob } from '../watching/namespaces.ts';
import { rulesOf, type Need } from './rules.ts';

export interface ManifestOptions {
  serviceAccount: { name: string; namespace: string };
  /** The name of the roles and bindings; the service account's by default. */
  name?: string;
  /** The namespaces served, as `kopf run --namespace`; cluster-wide when empty. */
  namespaces?: readonly string[];
}

const RBAC = 'rbac.authorization.k8s.io/v1';

export function rbacManifests(needs: readonly Need[], options: ManifestOptions): KubeObject[] {
  const account = options.serviceAccount;
  const name = options.name ?? account.name;
  const namespaces = options.namespaces ?? [];
  const serviceAccount: builtins.ServiceAccount = {
    apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account.name, namespace: account.namespace },
  };
  const free = needs.filter((need) => need.namespace === undefined);
  const clusterWideMode = servesClusterWide(namespaces);
  const clusterNeeds = clusterWideMode ? free : free.filter((need) => need.clusterScoped === true);
  const perNamespace = new Map<string, Need[]>();
  if (!clusterWideMode) {
    for (const namespace of namespaces) perNamespace.set(namespace, free.filter((need) => need.clusterScoped !== true));
    // Events about cluster-scoped objects go to the namespace of the operator's credentials.
    const servesClusterScoped = needs.some((need) => need.why === 'served' && need.clusterScoped === true);
    const events = needs.filter(isFrameworkEvents);
    if (servesClusterScoped && events.length && !perNamespace.has(account.namespace)) {
      perNamespace.set(account.namespace, events);
    }
  }
  for (const need of needs) {
    if (need.namespace === undefined) continue;
    perNamespace.set(need.namespace, [...perNamespace.get(need.namespace) ?? [], need]);
  }
  const clusterRoles = clusterNeeds.length ? grant(name, undefined, clusterNeeds, options) : [];
  // A namespace with nothing to grant gets no Role (an operator of admission handlers only).
  const granted = [...perNamespace].filter(([, own]) => own.length);
  const roles = granted.flatMap(([namespace, own]) => grant(name, namespace, own, options));
  return [serviceAccount, ...clusterRoles, ...roles];
}

/**
 * What a reader of the printout must know about where it grants: the namespaced permissions that a
 * ClusterRole grants in every namespace, and why. Empty when there are none.
 */
export function scopeNotes(needs: readonly Need[], namespaces: readonly string[] = []): string[] {
  if (!servesClusterWide(namespaces)) return [];
  const everywhere = needs.filter((need) => need.namespace === undefined && need.clusterScoped !== true);
  if (!everywhere.length) return [];
  const resources = [...new Set(everywhere.map((need) => need.resource))].join(', ');
  return [
    `Cluster-wide, the ClusterRole grants ${resources} in every namespace: an operator that serves`,
    'the whole cluster (or namespaces by pattern) meets its objects, and makes their children, in any',
    'namespace, and RBAC cannot grant "where the served objects are". For a Role in each namespace',
    'instead, serve named namespaces (-n NS); children kept in one namespace: requires(…, { namespace }).',
  ];
}

/** The whole cluster, or namespaces by pattern, which come and go: no Role can be written ahead for them. */
function servesClusterWide(namespaces: readonly string[]): boolean {
  return !namespaces.length || namespaces.some(isGlob);
}

/** A Role and its RoleBinding in `namespace`, or, with no namespace, a ClusterRole and its binding. */
function grant(
  name: string,
  namespace: string | undefined,
  needs: readonly Need[],
  options: ManifestOptions,
): KubeObject[] {
  const kind = namespace === undefined ? 'ClusterRole' : 'Role';
  const metadata = () => (namespace === undefined ? { name } : { name, namespace });
  const role: builtins.ClusterRole | builtins.Role = {
    apiVersion: RBAC,
    kind,
    metadata: metadata(),
    rules: rulesOf(needs),
  };
  const binding: builtins.ClusterRoleBinding | builtins.RoleBinding = {
    apiVersion: RBAC, kind: `${kind}Binding`, metadata: metadata(),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
    subjects: [subject(options)],
  };
  return [role, binding];
}

function subject(options: ManifestOptions) {
  return { kind: 'ServiceAccount', name: options.serviceAccount.name, namespace: options.serviceAccount.namespace };
}

/** The framework's own need to post events (not a declared one, whose scope is known). */
function isFrameworkEvents(need: Need): boolean {
  return need.resource === 'events' && need.group === '' && need.clusterScoped === undefined && !need.namespace;
}
