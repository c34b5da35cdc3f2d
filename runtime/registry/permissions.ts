/**
 * Permissions that handlers' own API calls need (the `client` in their context), declared next to
 * the handlers so that `kopf rbac` can grant them: which objects a handler reads or writes cannot
 * be found out from its code, only from what it declares.
 */
import type { Verb } from '../kube/index.ts';
import type { ResourceRef } from './handlers.ts';
import { RegistrationError } from './ids.ts';

/** A Kubernetes RBAC verb: the API verbs, and the few special ones (`bind`, `escalate`, `impersonate`, `use`). */
export type RbacVerb = Verb | 'bind' | 'escalate' | 'impersonate' | 'use' | '*';

export interface PermissionOptions {
  /** A subresource instead of the objects themselves: `'status'`, `'log'`, `'scale'`, … */
  subresource?: string;
  /**
   * The one namespace where the calls go (children kept in a fixed namespace): `kopf rbac` grants
   * them there only, with a Role, even to an operator that serves the whole cluster.
   */
  namespace?: string;
}

/** A namespace's name, as the API server accepts it: a DNS-1123 label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A declared permission, as the registry keeps it. */
export interface DeclaredPermission {
  resource: ResourceRef;
  verbs: readonly RbacVerb[];
  subresource?: string;
  namespace?: string;
}

/** The declaration, checked: a resource, at least one verb, no empty names, a namespace that can be one. */
export function declaredPermission(
  resource: ResourceRef, verbs: readonly RbacVerb[], options: PermissionOptions = {},
): DeclaredPermission {
  const valid = typeof resource === 'string'
    ? resource.trim() !== ''
    : Boolean(resource && typeof resource === 'object' && 'plural' in resource);
  if (!valid) {
    throw new RegistrationError(
      'requires(): the resource must be a descriptor (e.g. `builtins.ConfigMaps`) or a name such as ' +
      '\'deployments.apps\'.');
  }
  if (!Array.isArray(verbs) || !verbs.length || verbs.some((verb) => typeof verb !== 'string' || !verb)) {
    throw new RegistrationError('requires(): give the verbs as a non-empty list, e.g. `[\'get\', \'create\']`.');
  }
  const { subresource, namespace } = options;
  if (namespace !== undefined && !(typeof namespace === 'string' && NAMESPACE.test(namespace))) {
    throw new RegistrationError(
      `requires(): the namespace ${JSON.stringify(namespace)} is not a namespace's name (a DNS label, e.g. 'ops').`);
  }
  return { resource, verbs: [...verbs], ...(subresource ? { subresource } : {}), ...(namespace ? { namespace } : {}) };
}
