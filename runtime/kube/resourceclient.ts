/**
 * The client handlers get as `client`: typed reading and writing of any resource, the built-in
 * kinds included, through the operator's own connection pool, credentials and retries — so an
 * operator needs no second client library. For the handled object itself, `patch` in the handler's
 * context stays the way: it is applied with the handler's progress, in one request.
 *
 * Failures are `ApiError`s, of a class of their own for the common ones: `NotFoundError`,
 * `AlreadyExistsError`, `ConflictError`, `InvalidError`, and `ForbiddenError` (its subclass
 * `AuthorizationError` when the operator's RBAC does not allow the verb on the resource; a plain
 * `ForbiddenError` when an admission check refused the request).
 */
import type { FieldMap, JsonObject, KubeObject, MergePatch, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from './client.ts';
import { listObjects, type ListOptions } from './listing.ts';
import {
  createObject, deleteObject, getObject, patchObject, replaceObject,
  type DeleteOptions, type PatchOptions, type WriteOptions,
} from './objects.ts';
import type { ApplyPatch, JsonPatchOp, ListResult } from './types.ts';

type Resource<T extends KubeObject> = ResourceDescriptor<T, FieldMap>;
/** A descriptor with its input type, which what is written to create or replace an object has. */
type Writable<T extends KubeObject, I extends KubeObject> = ResourceDescriptor<T, FieldMap, I>;

/** Where the object is: its namespace, required for namespaced resources (cluster-scoped have none). */
export interface Where {
  namespace?: string | null;
  signal?: AbortSignal;
}

export type GetOptions = Where & { subresource?: string };
export type ListObjectsOptions = Omit<ListOptions, 'pageSize'>;
export type CreateOptions = WriteOptions & { namespace?: string | null };
export type MergePatchOptions = Where & Omit<PatchOptions, 'force'> & { type?: 'merge' | 'strategic' };
export type JsonPatchOptions = Where & Omit<PatchOptions, 'force'> & { type: 'json' };
/** Server-side apply; the field manager is `kopf` unless given. */
export type ApplyOptions = Where & PatchOptions & { type: 'apply' };
export type DeleteObjectOptions = Where & DeleteOptions;

/** The status of an object type, for status writes; any JSON object for untyped resources. */
export type StatusPart<T> = T extends { status?: infer S }
  ? (unknown extends S ? JsonObject : NonNullable<S>)
  : JsonObject;

type ReplaceOptions = WriteOptions & { subresource?: string };
type AnyPatchOptions = Where & PatchOptions & { type?: 'merge' | 'strategic' | 'json' | 'apply' };
type StatusOptions = Where & Omit<PatchOptions, 'force' | 'subresource'>;

const ofClients = new WeakMap<KubeClient, ResourceClient>();

/** The one `ResourceClient` over an API client, made on first use. */
export function resourceClientOf(kube: KubeClient): ResourceClient {
  let client = ofClients.get(kube);
  if (!client) ofClients.set(kube, client = new ResourceClient(kube));
  return client;
}

/** The field manager of server-side applies that do not name their own. */
export const DEFAULT_FIELD_MANAGER = 'kopf';

export class ResourceClient {
  readonly #kube: () => KubeClient;

  /** Over an API client, or a function that gives it when first needed (before the operator has connected). */
  constructor(kube: KubeClient | (() => KubeClient)) {
    this.#kube = typeof kube === 'function' ? kube : () => kube;
  }

  /** Reads one object (or its subresource). */
  get<T extends KubeObject>(resource: Resource<T>, name: string, options: GetOptions = {}): Promise<T> {
    return getObject(this.#kube(), resource, { name, namespace: options.namespace }, options);
  }

  /** Lists the objects in a namespace (all namespaces if none is given), page by page, as one result. */
  list<T extends KubeObject>(resource: Resource<T>, options: ListObjectsOptions = {}): Promise<ListResult<T>> {
    return listObjects(this.#kube(), resource, options);
  }

  /**
   * Creates an object in its `metadata.namespace` (or `options.namespace`); returns it as the server
   * stored it. The object is of the descriptor's input type: what the API server defaults may be left out.
   */
  create<T extends KubeObject, I extends KubeObject>(
    resource: Writable<T, I>, object: NoInfer<I>, options: CreateOptions = {},
  ): Promise<T> {
    return createObject(this.#kube(), resource, object, { ...options, namespace: options.namespace ?? undefined });
  }

  /**
   * Replaces an object as a whole (PUT), of the descriptor's input type as for `create`; its
   * `metadata.resourceVersion`, if set, guards against lost updates.
   */
  replace<T extends KubeObject, I extends KubeObject>(
    resource: Writable<T, I>, object: NoInfer<I>, options: ReplaceOptions = {},
  ): Promise<T> {
    return replaceObject(this.#kube(), resource, object, options);
  }

  /**
   * Patches an object: a JSON merge patch by default (`null` removes a field); `type: 'json'` for
   * RFC 6902 operations, `type: 'apply'` for server-side apply; `subresource: 'status'` writes the status.
   */
  patch<T extends KubeObject>(
    resource: Resource<T>, name: string, patch: MergePatch<NoInfer<T>>, options?: MergePatchOptions): Promise<T>;
  patch<T extends KubeObject>(
    resource: Resource<T>, name: string, patch: readonly JsonPatchOp[], options: JsonPatchOptions): Promise<T>;
  patch<T extends KubeObject>(
    resource: Resource<T>, name: string, patch: ApplyPatch<NoInfer<T>>, options: ApplyOptions): Promise<T>;
  patch<T extends KubeObject>(
    resource: Resource<T>, name: string, patch: unknown, options: AnyPatchOptions = {},
  ): Promise<T> {
    const ref = { name, namespace: options.namespace };
    const fieldManager = options.fieldManager ?? (options.type === 'apply' ? DEFAULT_FIELD_MANAGER : undefined);
    const patchOptions = { ...options, fieldManager, type: options.type as 'merge' };
    return patchObject(this.#kube(), resource, ref, patch as MergePatch<T>, patchOptions);
  }

  /** Merges into the object's status, through the status subresource where the resource has one. */
  patchStatus<T extends KubeObject>(
    resource: Resource<T>, name: string, status: MergePatch<StatusPart<NoInfer<T>>>, options: StatusOptions = {},
  ): Promise<T> {
    const subresource = resource.subresources?.includes('status') ? 'status' : undefined;
    const ref = { name, namespace: options.namespace };
    const patch = { status } as unknown as MergePatch<T>;
    return patchObject(this.#kube(), resource, ref, patch, { ...options, subresource });
  }

  /** Deletes an object (it stays while finalizers hold it); `NotFoundError` if it is not there. */
  async delete<T extends KubeObject>(
    resource: Resource<T>, name: string, options: DeleteObjectOptions = {},
  ): Promise<void> {
    await deleteObject(this.#kube(), resource, { name, namespace: options.namespace }, options);
  }
}
