/**
 * `adopt()`: makes objects the children of an owner in one call, as Kopf's `adopt` — an owner
 * reference, a name derived from the owner's, the owner's namespace and its labels.
 */
import type { KubeObject, ObjectMeta, OwnerReference } from '../structs/resources.ts';
import { adjustNamespace, harmonizeNaming } from './naming.ts';
import { label } from './labels.ts';
import { appendOwnerReference, each, ownerOrHandled, type Children, type Owner } from './owners.ts';

export interface AdoptOptions {
  /** Overwrite the child's own name, namespace and labels with the owner's. */
  forced?: boolean;
  /** Name the child exactly as the owner, not with the owner's name as a prefix. */
  strict?: boolean;
  /** Dotted paths of templates inside the child to label too (`'spec.template'`). */
  nested?: string | readonly string[];
}

/** A child after adoption: its metadata is there, with the owner reference in it. */
export type Adopted<C extends KubeObject> = C & {
  metadata: NonNullable<C['metadata']> & ObjectMeta & { ownerReferences: OwnerReference[] };
};

/**
 * Makes the child (or each child) the owner's: the owner is the handled object when omitted inside
 * a handler. The child is changed in place and returned, typed as given:
 *
 *   const child = adopt({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data' }, data }, body);
 *   await client.create(builtins.ConfigMaps, child);
 */
export function adopt<C extends KubeObject>(children: C, owner?: Owner, options?: AdoptOptions): Adopted<C>;
export function adopt<C extends KubeObject>(children: C[], owner?: Owner, options?: AdoptOptions): Adopted<C>[];
export function adopt<C extends KubeObject>(
  children: Children<C>, owner?: Owner, options: AdoptOptions = {},
): Children<C> {
  const real = ownerOrHandled(owner);
  const meta = real.metadata ?? {};
  const many = each(children);
  appendOwnerReference(many, real);
  harmonizeNaming(many, meta.name, { forced: options.forced, strict: options.strict });
  adjustNamespace(many, meta.namespace ?? null, { forced: options.forced });
  label(many, meta.labels ?? {}, { forced: options.forced, nested: options.nested });
  return children;
}
