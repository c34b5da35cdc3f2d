/**
 * Names and namespaces of children: by default a child is named after its owner (a prefix that the
 * API server completes, so several children never clash) and lives in the owner's namespace.
 */
import type { KubeObject } from '../structs/resources.ts';
import { each, metadataOf, ownerOrHandled, type Children } from './owners.ts';

export interface NamingOptions {
  /** Rename children that have a name or a prefix of their own already. */
  forced?: boolean;
  /** Use the name as it is, not as a `generateName` prefix (for children other objects refer to by name). */
  strict?: boolean;
}

/**
 * Names each child that has neither a name nor a prefix (or each, if `forced`): `generateName:
 * '<name>-'`, or `name: '<name>'` if `strict`. The name is the handled object's by default; the real
 * name of a prefixed child is the one the API server returns on creation.
 */
export function harmonizeNaming<C extends KubeObject>(children: C, name?: string, options?: NamingOptions): C;
export function harmonizeNaming<C extends KubeObject>(children: C[], name?: string, options?: NamingOptions): C[];
export function harmonizeNaming<C extends KubeObject>(
  children: Children<C>, name?: string, options: NamingOptions = {},
): Children<C> {
  const base = name ?? ownerOrHandled(undefined).metadata?.name;
  if (!base) throw new TypeError('The name must be given explicitly: the owner has none.');
  for (const child of each(children)) {
    const meta = metadataOf(child);
    if (!options.forced && (meta.name !== undefined || meta.generateName !== undefined)) continue;
    if (options.strict) {
      meta.name = base;
      delete meta.generateName;
    } else {
      meta.generateName = `${base}-`;
      delete meta.name;
    }
  }
  return children;
}

export interface NamespaceOptions {
  /** Move children that have a namespace of their own already. */
  forced?: boolean;
}

/**
 * Puts each child without a namespace (or each, if `forced`) into the namespace given, the handled
 * object's by default. A cluster-scoped owner has none: its children are left as they are.
 */
export function adjustNamespace<C extends KubeObject>(
  children: C, namespace?: string | null, options?: NamespaceOptions): C;
export function adjustNamespace<C extends KubeObject>(
  children: C[], namespace?: string | null, options?: NamespaceOptions): C[];
export function adjustNamespace<C extends KubeObject>(
  children: Children<C>, namespace?: string | null, options: NamespaceOptions = {},
): Children<C> {
  const target = namespace === undefined ? ownerOrHandled(undefined).metadata?.namespace : namespace;
  if (!target) return children;
  for (const child of each(children)) {
    const meta = metadataOf(child);
    if (options.forced || !meta.namespace) meta.namespace = target;
  }
  return children;
}
