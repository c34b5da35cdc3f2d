/**
 * The API permissions an operator needs, derived from its registry: what the engine does with the
 * resources its handlers serve, what the framework does besides (events, CRD discovery, namespace
 * patterns, peering, managed webhook configurations), and what the handlers' own calls need, as
 * far as they are declared with `requires()` — a handler's code cannot be read for the objects it
 * touches.
 */
import * as builtins from '../structs/builtins.ts';
import { keySecretName } from '../sharding/seals.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { parseSelector } from '../kube/index.ts';
import type { ResourceRef } from '../registry/handlers.ts';
import { sameResource, type OperatorRegistry } from '../registry/registry.ts';
import { isGlob } from '../watching/namespaces.ts';
import { peeringResources } from '../peering/peering-resources.ts';
import { CONFIGURATIONS } from '../webhooks/managed.ts';
import { convertedCrds } from '../webhooks/conversion-managed.ts';

/** A rule of a Role or ClusterRole, as Kubernetes writes it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  /** Only these objects (never matches a `create`: its request's path names no object). */
  resourceNames?: string[];
  verbs: string[];
}

/** One permission: verbs on a resource (or its subresource, `pods/log`) of an API group. */
export interface Need {
  group: string;
  /** The resource as RBAC names it: the plural, with `/subresource` if any. */
  resource: string;
  verbs: readonly string[];
  /** Only the objects of these names; all of them when absent. */
  resourceNames?: readonly string[];
  /** Cluster-scoped resources can only be granted by a ClusterRole; `undefined` if not known. */
  clusterScoped?: boolean;
  /** Granted in this namespace only, whatever the operator serves (the leader-election Lease's). */
  namespace?: string;
  /** Why: shown as a comment in the printed manifests. */
  why: string;
}

export interface NeedsOptions {
  /** The namespaces served (patterns allowed), as `kopf run --namespace`; cluster-wide when empty. */
  namespaces?: readonly string[];
  /** Whether the operator posts Kubernetes events (`posting.enabled`); true by default. */
  events?: boolean;
  /** No peering (`kopf run --standalone`); otherwise the peering objects of its scope are used if they exist. */
  standalone?: boolean;
  /** The namespace of the leader-election Lease (`kopf run --leader-election`), if elected. */
  leaderElection?: { namespace: string };
  /**
   * The namespace of a ring's Leases and key (`kopf run --sharding`), if the operator is a ring's
   * replica: it also labels the served objects (their assignment), and reads them to tell a deletion
   * from a move. With the ring's name, reading the key is granted on its Secret only.
   */
  sharding?: { namespace: string; ring?: string };
  /**
   * The webhook configurations of admission handlers, which `settings.admission.managed` (or `kopf
   * run --webhook-managed NAME`) has the operator create and keep current. They are set when the
   * operator runs, out of sight here, so they are granted whenever there are admission handlers
   * (`true`, the default); their name narrows the patches to those objects; `false` leaves them out
   * (the configurations are written by other means).
   */
  webhookManaged?: boolean | string;
}

/** A resource that cannot be named for RBAC without a cluster to ask. */
export class RbacError extends Error {
  constructor(message: string) { super(message); this.name = 'RbacError'; }
}

/** Everything the operator's registry needs, in the order: served resources, framework, declared. */
export function operatorNeeds(registry: OperatorRegistry, options: NeedsOptions = {}): Need[] {
  const own = [...servedNeeds(registry, options.sharding !== undefined), ...relatedNeeds(registry)];
  return [...own, ...frameworkNeeds(registry, options), ...declaredNeeds(registry)];
}

/**
 * The served resources: listed and watched; patched (and their status, where it is a subresource)
 * when changing handlers, timers or daemons store their progress, results and diff-base on the
 * objects, and then read too (`get`: an object is read afresh when our own write does not come back
 * through the watch in time); and by a ring's replicas in every case (the assignment labels).
 */
function servedNeeds(registry: OperatorRegistry, sharded: boolean): Need[] {
  const needs: Need[] = [];
  for (const ref of registry.resources()) {
    const target = rbacResource(ref);
    const handlers = registry.resourceHandlers.filter((h) => sameResource(h.resource, ref));
    const patching = handlers.some((h) => h.kind !== 'event' && h.kind !== 'index');
    const base = { group: target.group, clusterScoped: target.clusterScoped };
    const verbs = patching || sharded ? ['get', 'list', 'watch', 'patch'] : ['list', 'watch'];
    needs.push({ ...base, resource: target.plural, verbs, why: patching || !sharded ? 'served' : 'served, sharded' });
    if (patching && target.status !== false) {
      const why = 'served: results and progress in status';
      needs.push({ ...base, resource: `${target.plural}/status`, verbs: ['patch'], why });
    }
  }
  return needs;
}

/**
 * The related resources of reconcilers: watched (listed and watched, as metadata or whole); owned
 * ones also kept by the reconciler, which reads, creates, changes and deletes its children.
 */
function relatedNeeds(registry: OperatorRegistry): Need[] {
  const needs: Need[] = [];
  for (const handler of registry.resourceHandlers) {
    if (handler.kind !== 'reconcile') continue;
    for (const owned of handler.owns) {
      const { group, plural, clusterScoped } = rbacResource(owned.resource);
      const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
      needs.push({ group, resource: plural, clusterScoped, verbs, why: `owned by reconciler '${handler.id}'` });
    }
    for (const watched of handler.watches) {
      const { group, plural, clusterScoped } = rbacResource(watched.resource);
      const why = `watched by reconciler '${handler.id}'`;
      needs.push({ group, resource: plural, clusterScoped, verbs: ['list', 'watch'], why });
    }
  }
  return needs;
}

/** What the framework itself does besides serving. */
function frameworkNeeds(registry: OperatorRegistry, options: NeedsOptions): Need[] {
  const needs: Need[] = [];
  if (options.events ?? true) {
    needs.push({ group: '', resource: 'events', verbs: ['create'], why: 'events about the served objects' });
  }
  // Resources named by strings are looked up, and waited for until their CRDs are created.
  if (registry.resources().some((ref) => typeof ref === 'string')) {
    needs.push({
      group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verbs: ['list', 'watch'],
      clusterScoped: true,
      why: 'resources named by strings: their CRDs are awaited',
    });
  }
  if ((options.namespaces ?? []).some(isGlob)) {
    needs.push({
      group: '', resource: 'namespaces', verbs: ['list', 'watch'], clusterScoped: true,
      why: 'namespace patterns: the namespaces are observed',
    });
  }
  const webhooks = [...webhookNeeds(registry, options), ...conversionNeeds(registry, options)];
  return [...needs, ...peeringNeeds(options), ...webhooks];
}

/**
 * Converters: the conversion webhook is set in the CRDs of the converted resources when managed;
 * those CRDs, by name, are all that is patched.
 */
function conversionNeeds(registry: OperatorRegistry, options: NeedsOptions): Need[] {
  const crds = convertedCrds(registry.conversionHandlers);
  if (!crds.length || options.webhookManaged === false) return [];
  const { group, plural } = builtins.CustomResourceDefinitions;
  const why = 'converters: the conversion webhook in their CRDs (unless --no-webhook-managed)';
  return [{ group, resource: plural, verbs: ['patch'], resourceNames: crds, clusterScoped: true, why }];
}

/**
 * Managed webhook configurations: created at start if absent (RBAC cannot narrow a `create` to a
 * name: its request's path names no object), then patched with the webhooks.
 */
function webhookNeeds(registry: OperatorRegistry, options: NeedsOptions): Need[] {
  const managed = options.webhookManaged ?? true;
  if (!registry.webhookHandlers.length || managed === false) return [];
  const why = 'admission handlers: managed webhook configurations (unless --no-webhook-managed)';
  return Object.values(CONFIGURATIONS).flatMap(({ group, plural }): Need[] => {
    const need = { group, resource: plural, clusterScoped: true, why };
    if (managed === true) return [{ ...need, verbs: ['create', 'patch'] }];
    return [{ ...need, verbs: ['create'] }, { ...need, verbs: ['patch'], resourceNames: [managed] }];
  });
}

/**
 * Peering: the operator's records in the peering object of its scope (ClusterKopfPeering when it
 * serves the whole cluster, KopfPeering in each served namespace), unless it is standalone; the
 * Lease of leader election, in its namespace; a ring's Leases (each replica's own, and the
 * assigner's election), in theirs.
 */
function peeringNeeds(options: NeedsOptions): Need[] {
  const needs: Need[] = [];
  if (!options.standalone) {
    const clusterwide = !(options.namespaces ?? []).length;
    const [resource] = peeringResources(clusterwide);
    needs.push({
      group: resource!.group, resource: resource!.plural, verbs: ['get', 'list', 'watch', 'patch'],
      clusterScoped: clusterwide,
      why: 'peering (unless --standalone)',
    });
  }
  if (options.leaderElection) {
    needs.push({
      group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'list', 'watch', 'create', 'update'],
      namespace: options.leaderElection.namespace, why: 'leader election',
    });
  }
  if (options.sharding) needs.push(...ringNeeds(options.sharding));
  return needs;
}

/**
 * A ring's replica: the Leases of the ring's members and of its assigner, and the ring's key, in
 * their namespace. RBAC cannot narrow `create` by name (the name is not known when it is
 * authorized), nor `list` and `watch` of the members (found by their label); the members' Leases
 * are named after each replica's identity, unknown beforehand, so neither can their `get`,
 * `update` and `delete` be. The key's Secret is named after the ring: with the ring's name, `get`
 * is granted on that Secret only.
 */
function ringNeeds(sharding: { namespace: string; ring?: string }): Need[] {
  const { namespace, ring } = sharding;
  return [
    {
      group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      namespace, why: 'sharding: the ring\'s Leases',
    },
    { group: '', resource: 'secrets', verbs: ['create'], namespace, why: 'sharding: the ring\'s key, made once' },
    {
      group: '', resource: 'secrets', verbs: ['get'], namespace, why: 'sharding: the ring\'s key',
      ...(ring ? { resourceNames: [keySecretName(ring)] } : {}),
    },
  ];
}

/** What the handlers declared with `requires()` for their own calls; in their namespace, if they name one. */
function declaredNeeds(registry: OperatorRegistry): Need[] {
  return registry.permissions.map((permission) => {
    const target = rbacResource(permission.resource);
    const resource = permission.subresource ? `${target.plural}/${permission.subresource}` : target.plural;
    const { group, clusterScoped } = target;
    const { verbs, namespace } = permission;
    if (namespace === undefined) return { group, resource, verbs, clusterScoped, why: 'declared with requires()' };
    if (clusterScoped) {
      throw new RbacError(`requires(${resource}, …, { namespace: '${namespace}' }): ` +
        `${resource} are cluster-scoped, so no namespace holds them: leave the namespace out.`);
    }
    return { group, resource, verbs, clusterScoped, namespace, why: `declared with requires(), in ${namespace}` };
  });
}

interface RbacResource {
  group: string;
  plural: string;
  clusterScoped?: boolean;
  /** Whether the status is a subresource; `undefined` if not known. */
  status?: boolean;
}

const BUILTINS: readonly ResourceDescriptor[] = Object.values(builtins).filter(isDescriptor);

/**
 * The group and plural that RBAC needs: from a descriptor, or from a name — a built-in kind by any
 * of its names, else `<plural>.<group>`. Other names need discovery, which a printout has not.
 */
export function rbacResource(ref: ResourceRef): RbacResource {
  if (typeof ref !== 'string') return fromDescriptor(ref);
  const selector = parseSelector(ref);
  const name = selector.name.toLowerCase();
  const inGroup = (d: ResourceDescriptor) => selector.group === undefined || selector.group === d.group;
  const builtin = BUILTINS.find((d) => inGroup(d) && namesOf(d).includes(name));
  if (builtin) return fromDescriptor(builtin);
  if (selector.group) return { group: selector.group, plural: name };
  throw new RbacError(
    `The resource '${ref}' is named without its API group, and no built-in kind has that name: ` +
    `name it '<plural>.<group>' (e.g. 'kopfexamples.kopf.dev') or use its descriptor.`);
}

function fromDescriptor(d: ResourceDescriptor): RbacResource {
  const status = d.subresources ? d.subresources.includes('status') : undefined;
  return { group: d.group, plural: d.plural, clusterScoped: d.scope === 'Cluster', status };
}

function namesOf(d: ResourceDescriptor): string[] {
  return [d.plural, d.singular ?? '', d.kind.toLowerCase(), ...(d.shortNames ?? [])];
}

function isDescriptor(value: unknown): value is ResourceDescriptor {
  return typeof value === 'object' && value !== null && 'plural' in value && 'kind' in value;
}

/**
 * The needs as rules: the verbs of one resource (and the same object names) together, and
 * resources of one group with the same verbs and names in one rule; in a stable order, so that
 * printouts can be compared.
 */
export function rulesOf(needs: readonly Need[]): PolicyRule[] {
  const grants = new Map<string, Grant>(); // by group, resource and names
  for (const need of needs) {
    const names = [...new Set(need.resourceNames ?? [])].sort();
    const key = JSON.stringify([need.group, need.resource, names]);
    const grant = grants.get(key) ?? { group: need.group, resource: need.resource, names, verbs: new Set<string>() };
    for (const verb of need.verbs) grant.verbs.add(verb);
    grants.set(key, grant);
  }
  const rules = new Map<string, PolicyRule>(); // by group, verbs and names
  for (const { group, resource, names, verbs } of grants.values()) {
    const sorted = [...verbs].sort(byVerb);
    const key = JSON.stringify([group, sorted, names]);
    const rule: PolicyRule = rules.get(key) ?? {
      apiGroups: [group], resources: [], ...(names.length ? { resourceNames: names } : {}), verbs: sorted,
    };
    rule.resources.push(resource);
    rules.set(key, rule);
  }
  return [...rules.values()];
}

/** The verbs granted on one resource of a group (or on the named objects only). */
interface Grant {
  group: string;
  resource: string;
  /** Sorted, each once; empty for all objects. */
  names: string[];
  verbs: Set<string>;
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

function byVerb(a: string, b: string): number {
  const [i, j] = [VERB_ORDER.indexOf(a), VERB_ORDER.indexOf(b)];
  return (i < 0 ? VERB_ORDER.length : i) - (j < 0 ? VERB_ORDER.length : j) || a.localeCompare(b);
}
