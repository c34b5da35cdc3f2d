/**
 * What a reconciler's watches of its related resources (`owns`, `watches`) have brought, kept so
 * that the reconciler reads its children and related objects with no request to the API server,
 * as controller-runtime's client reads from its informers' cache. The watches exist anyway (they
 * queue the requests); this keeps their latest objects, by name, and the owned ones also by their
 * controller's uid, so that a reconciler's `owned(resource)` costs a lookup.
 *
 * Objects are as current as the latest event seen when they are read: a change the reconciler has
 * just written may not be in yet (its event queues another run, which reads it).
 */
import type { FieldMap, KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { MetadataView, RelatedCache } from '../registry/contexts.ts';
import type { RelatedResource } from '../registry/handlers.ts';
import { labelMatcher } from './label-selectors.ts';
import { nameKey } from './related-requests.ts';

/** What one related resource's watches have brought. */
interface Store {
  readonly related: RelatedResource;
  /** By `namespace/name`. */
  readonly objects: Map<string, KubeObject>;
  /** For an owned resource: by the controller's uid, then by `namespace/name`. */
  readonly byOwner: Map<string, Map<string, KubeObject>> | undefined;
  /** The owner each object was filed under, to move or drop it when it changes. */
  readonly owners: Map<string, string>;
}

const NONE: readonly KubeObject[] = Object.freeze([]);

/** A resource's identity for the cache: its group and plural, whatever the version. */
function resourceKey(resource: ResourceDescriptor): string {
  return `${resource.plural}.${resource.group}`;
}

export class RelatedObjects implements RelatedCache {
  readonly #stores = new Map<string, Store>();
  readonly #ownerOf: (object: KubeObject) => string | undefined;
  readonly #title: string;

  /** `ownerOf`: the uid of the reconciled object that controls an owned object, if any. */
  constructor(owns: readonly RelatedResource[], watches: readonly RelatedResource[],
    ownerOf: (object: KubeObject) => string | undefined, title: string) {
    this.#ownerOf = ownerOf;
    this.#title = title;
    for (const related of [...watches, ...owns]) {
      const owned = owns.includes(related);
      this.#stores.set(resourceKey(related.resource), {
        related, objects: new Map(), owners: new Map(), byOwner: owned ? new Map() : undefined,
      });
    }
  }

  /** A watch event of a related resource: its object kept, or dropped when deleted. */
  seen(related: RelatedResource, object: KubeObject, type: 'ADDED' | 'MODIFIED' | 'DELETED' | null): void {
    const store = this.#stores.get(resourceKey(related.resource));
    const meta = object.metadata;
    if (!store || !meta || typeof meta !== 'object' || typeof meta.name !== 'string') return;
    const key = nameKey(typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name);
    this.#unfile(store, key);
    if (type === 'DELETED') {
      store.objects.delete(key);
      return;
    }
    store.objects.set(key, object);
    const owner = store.byOwner && this.#ownerOf(object);
    if (owner === undefined || !store.byOwner) return;
    let children = store.byOwner.get(owner);
    if (!children) store.byOwner.set(owner, children = new Map());
    children.set(key, object);
    store.owners.set(key, owner);
  }

  /** The children of the object of `uid` of an owned resource, as full objects. */
  owned<C extends KubeObject>(uid: string, resource: ResourceDescriptor<C, FieldMap>): readonly Readonly<C>[] {
    const store = this.#owned(resource, 'owned');
    if (store.related.metadataOnly) {
      throw new Error(`${this.#title} owns ${resource.plural} as metadata only: read them with ownedMetadata().`);
    }
    return this.#children(store, uid) as readonly C[];
  }

  /** The same as metadata, whether the resource is watched in full or not. */
  ownedMetadata<C extends KubeObject>(
    uid: string, resource: ResourceDescriptor<C, FieldMap>,
  ): readonly MetadataView<C>[] {
    const store = this.#owned(resource, 'ownedMetadata');
    return this.#children(store, uid).map(metadataOf) as readonly MetadataView<C>[];
  }

  get<C extends KubeObject>(
    resource: ResourceDescriptor<C, FieldMap>, name: string, namespace?: string | null,
  ): Readonly<C> | undefined {
    const store = this.#store(resource, 'cache.get');
    return store.objects.get(nameKey(namespace, name)) as C | undefined;
  }

  list<C extends KubeObject>(
    resource: ResourceDescriptor<C, FieldMap>, options: { namespace?: string | null; labelSelector?: string } = {},
  ): readonly Readonly<C>[] {
    const store = this.#store(resource, 'cache.list');
    const matches = options.labelSelector ? labelMatcher(options.labelSelector) : undefined;
    const found: KubeObject[] = [];
    for (const object of store.objects.values()) {
      if (options.namespace && object.metadata?.namespace !== options.namespace) continue;
      if (matches && !matches(object.metadata?.labels)) continue;
      found.push(object);
    }
    return found as C[];
  }

  /** How many objects are kept, of all resources (for tests and the docs' memory figures). */
  get size(): number {
    let size = 0;
    for (const store of this.#stores.values()) size += store.objects.size;
    return size;
  }

  #store(resource: ResourceDescriptor, what: string): Store {
    const store = this.#stores.get(resourceKey(resource));
    if (!store) {
      throw new Error(`${this.#title}: ${what}() reads only the resources in \`owns\` and \`watches\`, `
        + `not ${resource.plural}.`);
    }
    return store;
  }

  #owned(resource: ResourceDescriptor, what: string): Store {
    const store = this.#store(resource, what);
    if (!store.byOwner) {
      throw new Error(`${this.#title}: ${what}() reads the resources in \`owns\`, not ${resource.plural}.`);
    }
    return store;
  }

  #children(store: Store, uid: string): readonly KubeObject[] {
    const children = store.byOwner?.get(uid);
    return children ? [...children.values()] : NONE;
  }

  #unfile(store: Store, key: string): void {
    const owner = store.owners.get(key);
    if (owner === undefined) return;
    store.owners.delete(key);
    const children = store.byOwner?.get(owner);
    children?.delete(key);
    if (children && !children.size) store.byOwner!.delete(owner);
  }
}

function metadataOf(object: KubeObject): MetadataView<KubeObject> {
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata ?? {} };
}
