/**
 * Owner references: the link that makes Kubernetes delete a child with its owner (garbage
 * collection) and tells tools which object a child belongs to. As Kopf's hierarchy helpers, these
 * change the children in place: they are the objects about to be created, not the one handled.
 */
import type { KubeObject, ObjectMeta, OwnerReference } from '../structs/resources.ts';
import { currentOperatorContext } from '../posting/index.ts';

/** What an owner must have: its type and identity (a handler's `body` has them). */
export interface Owner {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: Readonly<Pick<ObjectMeta, 'name' | 'namespace' | 'uid'>> & {
    readonly labels?: Readonly<Record<string, string>>;
  };
}

/** One child or several; the helpers change each of them and return what they were given. */
export type Children<C extends KubeObject> = C | C[];

export interface OwnerReferenceOptions {
  /** Whether the owner is the managing controller of the child (one at most); true by default. */
  controller?: boolean;
  /** Whether foreground deletion of the owner waits for the child; true by default. */
  blockOwnerDeletion?: boolean;
}

/**
 * The owner given, or the object being handled when called from inside a handler (as Kopf guesses
 * it from the current cause).
 */
export function ownerOrHandled(owner: Owner | undefined): Owner {
  if (owner) return owner;
  const body = currentOperatorContext()?.body;
  if (body) return body;
  throw new Error('The owner must be given explicitly outside of a handler (there is no object being handled to take '
    + 'it from).');
}

/** An owner reference to the object: its apiVersion, kind, name and uid, which all must be there. */
export function buildOwnerReference(owner: Owner, options: OwnerReferenceOptions = {}): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata ?? {};
  const fields = { apiVersion, kind, 'metadata.name': name, 'metadata.uid': uid };
  const missing = Object.entries(fields).filter(([, value]) => !value);
  if (missing.length) {
    const fields = missing.map(([field]) => field).join(', ');
    throw new TypeError(`Cannot refer to an owner without ${fields}: pass the object as the API server returned it.`);
  }
  return {
    apiVersion: apiVersion!, kind: kind!, name: name!, uid: uid!,
    controller: options.controller ?? true, blockOwnerDeletion: options.blockOwnerDeletion ?? true,
  };
}

/** Adds an owner reference to each child, unless it already has one to the same owner (by uid). */
export function appendOwnerReference<C extends KubeObject>(
  children: C, owner?: Owner, options?: OwnerReferenceOptions): C;
export function appendOwnerReference<C extends KubeObject>(
  children: C[], owner?: Owner, options?: OwnerReferenceOptions): C[];
export function appendOwnerReference<C extends KubeObject>(
  children: Children<C>, owner?: Owner, options: OwnerReferenceOptions = {},
): Children<C> {
  const reference = buildOwnerReference(ownerOrHandled(owner), options);
  for (const child of each(children)) {
    const references = metadataOf(child).ownerReferences ??= [];
    if (!references.some((ref) => ref.uid === reference.uid)) references.push({ ...reference });
  }
  return children;
}

/** Removes the owner's references (by uid) from each child. */
export function removeOwnerReference<C extends KubeObject>(children: C, owner?: Owner): C;
export function removeOwnerReference<C extends KubeObject>(children: C[], owner?: Owner): C[];
export function removeOwnerReference<C extends KubeObject>(children: Children<C>, owner?: Owner): Children<C> {
  const uid = buildOwnerReference(ownerOrHandled(owner)).uid;
  for (const child of each(children)) {
    const meta = metadataOf(child);
    if (meta.ownerReferences?.some((ref) => ref.uid === uid)) {
      meta.ownerReferences = meta.ownerReferences.filter((ref) => ref.uid !== uid);
    }
  }
  return children;
}

/** The children as a list, whether one or several were given. */
export function each<C extends KubeObject>(children: Children<C>): C[] {
  return Array.isArray(children) ? children : [children];
}

/** The child's metadata, created if it has none. */
export function metadataOf(child: KubeObject): ObjectMeta {
  return child.metadata ??= {};
}
