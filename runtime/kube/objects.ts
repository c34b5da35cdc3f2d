/**
 * Reading and writing single objects. Every function takes the resource's descriptor and returns
 * the object typed as the descriptor says; `subresource: 'status'` reaches the status subresource.
 */
import { apiVersionOf, resourceName, resourcePath } from '../structs/resources.ts';
import type { FieldMap, KubeObject, MergePatch, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from './client.ts';
import { jsonBody } from './responses.ts';
import type { ApiStatus } from './api-errors.ts';
import { METADATA_ITEM } from './listing.ts';
import type { ApplyPatch, JsonPatchOp, ObjectRef, PatchType, RequestOptions } from './types.ts';

type Resource<T extends KubeObject> = ResourceDescriptor<T, FieldMap>;
/** A descriptor with its input type, which what is written to create or replace an object has. */
type Writable<T extends KubeObject, I extends KubeObject> = ResourceDescriptor<T, FieldMap, I>;

export interface ReadOptions {
  subresource?: string;
  signal?: AbortSignal;
  /**
   * A state at least as new as this resourceVersion will do: the API server answers from its
   * watch cache rather than reading etcd.
   */
  notOlderThan?: string;
}

export interface WriteOptions {
  /** Validate and admit, but persist nothing. */
  dryRun?: boolean;
  /** The field manager recorded in `managedFields`. */
  fieldManager?: string;
  signal?: AbortSignal;
}

export interface PatchOptions extends WriteOptions {
  subresource?: string;
  /** Server-side apply only: take over fields owned by other managers. */
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Delete only if the object still has this uid / resourceVersion (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
  strategic: 'application/strategic-merge-patch+json',
};

export async function getObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  options: ReadOptions = {},
): Promise<T> {
  const path = objectPath(resource, ref.namespace, ref.name, options.subresource);
  const query = { resourceVersion: options.notOlderThan };
  return client.request<T>('GET', path, { signal: options.signal, verb: 'get', query });
}

/**
 * Creates an object, written as the descriptor's input type (what the API server defaults may be
 * left out); its namespace is `options.namespace` or the one in its metadata.
 */
export async function createObject<T extends KubeObject, I extends KubeObject>(
  client: KubeClient, resource: Writable<T, I>, object: NoInfer<I>, options: WriteOptions & { namespace?: string } = {},
): Promise<T> {
  const namespace = options.namespace ?? object.metadata?.namespace;
  requireNamespace(resource, namespace);
  const path = resourcePath(resource, { namespace });
  return client.request<T>(
    'POST',
    path,
    { body: withTypeMeta(resource, object), query: writeQuery(options), signal: options.signal, verb: 'create' },
  );
}

/**
 * Replaces an object (PUT) as a whole, written as the descriptor's input type; `metadata.resourceVersion`,
 * if set, guards against lost updates.
 */
export async function replaceObject<T extends KubeObject, I extends KubeObject>(
  client: KubeClient,
  resource: Writable<T, I>,
  object: NoInfer<I>,
  options: WriteOptions & { subresource?: string } = {},
): Promise<T> {
  const name = object.metadata?.name;
  if (!name) throw new TypeError(`Cannot replace a ${resource.kind} without metadata.name`);
  const path = objectPath(resource, object.metadata?.namespace, name, options.subresource);
  return client.request<T>(
    'PUT',
    path,
    { body: withTypeMeta(resource, object), query: writeQuery(options), signal: options.signal, verb: 'update' },
  );
}

export function patchObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  patch: MergePatch<T>,
  options?: PatchOptions & { type?: 'merge' | 'strategic' },
): Promise<T>;
export function patchObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  patch: readonly JsonPatchOp[],
  options: PatchOptions & { type: 'json' },
): Promise<T>;
export function patchObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  patch: ApplyPatch<T>,
  options: PatchOptions & { type: 'apply'; fieldManager: string },
): Promise<T>;
/**
 * Patches an object: a JSON merge patch by default; `type: 'json'` for RFC 6902 operations
 * (e.g. with `test` preconditions); `type: 'apply'` for server-side apply (a `fieldManager` is
 * required; `apiVersion` and `kind` are filled in); `type: 'strategic'` for built-in kinds only.
 */
export async function patchObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  patch: unknown,
  options: PatchOptions & { type?: PatchType } = {},
): Promise<T> {
  const { path, request } = patchRequest(resource, ref, patch, options);
  return client.request<T>('PATCH', path, request);
}

/** Where a patch goes and what it sends: the same for `patchObject` and `patchObjectVersion`. */
function patchRequest(
  resource: Resource<KubeObject>,
  ref: ObjectRef,
  patch: unknown,
  options: PatchOptions & { type?: PatchType },
): { path: string; request: RequestOptions } {
  const type = options.type ?? 'merge';
  if (type === 'apply' && !options.fieldManager) throw new TypeError('Server-side apply needs a fieldManager');
  const body = type === 'apply' ? withTypeMeta(
    resource,
    { ...(patch as object), metadata: { ...(patch as KubeObject).metadata, name: ref.name } },
  ) : patch;
  const path = objectPath(resource, ref.namespace, ref.name, options.subresource);
  const query = { ...writeQuery(options), force: type === 'apply' && options.force ? true : undefined };
  return { path, request: { body, contentType: CONTENT_TYPES[type], query, signal: options.signal, verb: 'patch' } };
}

/** How the API server's `PartialObjectMetadata` begins; the resourceVersion follows in its metadata. */
const PARTIAL_METADATA = '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{';
const VERSION_KEY = '"resourceVersion":"';
/** Where the version is looked for: past the longest name, generateName, namespace, selfLink and uid. */
const VERSION_WITHIN = 4096;

/**
 * Patches an object as `patchObject` does (the patch may be given as its JSON text, sent as it
 * is) and returns only its new resourceVersion, for writers
 * that need nothing else of the result (the engine's own patches: four per handled object). The
 * server sends the object's metadata only, and only the version is read from it: parsing the
 * whole object back on every write was a visible share of the instructions of a burst.
 */
export async function patchObjectVersion<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  patch: MergePatch<T> | readonly JsonPatchOp[] | string,
  options: PatchOptions & { type?: 'merge' | 'json' } = {},
): Promise<string | undefined> {
  const { path, request } = patchRequest(resource, ref, patch, options);
  return resourceVersionIn(await client.requestBytes('PATCH', path, { ...request, accept: METADATA_ITEM }));
}

/**
 * The resourceVersion of the object in a response. In the API server's `PartialObjectMetadata`,
 * a typed structure, the metadata comes first, and in it the version follows only name,
 * generateName, namespace, selfLink and uid, which cannot hold a quote: the first
 * `"resourceVersion":"` is it. Anything else (a server that ignored the ask and sent the whole
 * object) is parsed as a whole. The head of the response is read as text once: searching a string
 * is cheaper than searching the buffer, whose every search is a call of its own.
 */
export function resourceVersionIn(body: Buffer): string | undefined {
  const head = body.toString('latin1', 0, Math.min(body.length, VERSION_WITHIN));
  if (head.startsWith(PARTIAL_METADATA)) {
    const at = head.indexOf(VERSION_KEY, PARTIAL_METADATA.length);
    const start = at + VERSION_KEY.length;
    const end = at < 0 ? -1 : head.indexOf('"', start);
    const version = end > start ? head.slice(start, end) : '';
    if (version && !version.includes('\\')) return version;
  }
  return (jsonBody(body) as KubeObject | undefined)?.metadata?.resourceVersion;
}

/**
 * Deletes an object. Returns the object while finalizers hold it (or as the server reports it
 * deleted), or the server's `Status`, as Kubernetes answers.
 */
export async function deleteObject<T extends KubeObject>(
  client: KubeClient,
  resource: Resource<T>,
  ref: ObjectRef,
  options: DeleteOptions = {},
): Promise<T | ApiStatus> {
  const path = objectPath(resource, ref.namespace, ref.name);
  const body = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  };
  return client.request<T | ApiStatus>(
    'DELETE',
    path,
    { body, query: writeQuery(options), signal: options.signal, verb: 'delete' },
  );
}

function objectPath(
  resource: Resource<KubeObject>,
  namespace: string | null | undefined,
  name: string,
  subresource?: string,
): string {
  requireNamespace(resource, namespace);
  return resourcePath(resource, { namespace, name, subresource });
}

function requireNamespace(resource: Resource<KubeObject>, namespace: string | null | undefined): void {
  if (resource.scope === 'Namespaced' && !namespace)
    throw new TypeError(`${resourceName(resource)} is namespaced: a namespace is required`);
}

function writeQuery(options: { dryRun?: boolean; fieldManager?: string }): Record<string, string | undefined> {
  return { dryRun: options.dryRun ? 'All' : undefined, fieldManager: options.fieldManager };
}

/** The object with `apiVersion` and `kind` set from the descriptor where it lacks them. */
function withTypeMeta<T extends KubeObject>(resource: Resource<KubeObject>, object: T): T {
  return { ...object, apiVersion: object.apiVersion ?? apiVersionOf(resource), kind: object.kind ?? resource.kind };
}
