/**
 * Reading and writing single objects. Every function takes the resource's descriptor and returns
 * the object typed as the descriptor says; `subresource: 'status'` reaches the status subresource.
 */
import { apiVersionOf, resourceName, resourcePath } from '../structs/resources.ts';
import type { FieldMap, KubeObject, MergePatch, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from './client.ts';
import type { ApiStatus } from './errors.ts';
import type { ApplyPatch, JsonPatchOp, ObjectRef, PatchType } from './types.ts';

type Resource<T extends KubeObject> = ResourceDescriptor<T, FieldMap>;

export interface ReadOptions {
  subresource?: string;
  signal?: AbortSignal;
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

export async function getObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, options: ReadOptions = {}): Promise<T> {
  const path = objectPath(resource, ref.namespace, ref.name, options.subresource);
  return client.request<T>('GET', path, { signal: options.signal, verb: 'get' });
}

/** Creates an object; its namespace is `options.namespace` or the one in its metadata. */
export async function createObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, object: T, options: WriteOptions & { namespace?: string } = {}): Promise<T> {
  const namespace = options.namespace ?? object.metadata?.namespace;
  requireNamespace(resource, namespace);
  const path = resourcePath(resource, { namespace });
  return client.request<T>('POST', path, { body: withTypeMeta(resource, object), query: writeQuery(options), signal: options.signal, verb: 'create' });
}

/** Replaces an object (PUT) as a whole; `metadata.resourceVersion`, if set, guards against lost updates. */
export async function replaceObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, object: T, options: WriteOptions & { subresource?: string } = {}): Promise<T> {
  const name = object.metadata?.name;
  if (!name) throw new TypeError(`Cannot replace a ${resource.kind} without metadata.name`);
  const path = objectPath(resource, object.metadata?.namespace, name, options.subresource);
  return client.request<T>('PUT', path, { body: withTypeMeta(resource, object), query: writeQuery(options), signal: options.signal, verb: 'update' });
}

export function patchObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, patch: MergePatch<T>, options?: PatchOptions & { type?: 'merge' | 'strategic' }): Promise<T>;
export function patchObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, patch: readonly JsonPatchOp[], options: PatchOptions & { type: 'json' }): Promise<T>;
export function patchObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, patch: ApplyPatch<T>, options: PatchOptions & { type: 'apply'; fieldManager: string }): Promise<T>;
/**
 * Patches an object: a JSON merge patch by default; `type: 'json'` for RFC 6902 operations
 * (e.g. with `test` preconditions); `type: 'apply'` for server-side apply (a `fieldManager` is
 * required; `apiVersion` and `kind` are filled in); `type: 'strategic'` for built-in kinds only.
 */
export async function patchObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, patch: unknown, options: PatchOptions & { type?: PatchType } = {}): Promise<T> {
  const type = options.type ?? 'merge';
  if (type === 'apply' && !options.fieldManager) throw new TypeError('Server-side apply needs a fieldManager');
  const body = type === 'apply' ? withTypeMeta(resource, { ...(patch as object), metadata: { ...(patch as KubeObject).metadata, name: ref.name } }) : patch;
  const path = objectPath(resource, ref.namespace, ref.name, options.subresource);
  const query = { ...writeQuery(options), force: type === 'apply' && options.force ? true : undefined };
  return client.request<T>('PATCH', path, { body, contentType: CONTENT_TYPES[type], query, signal: options.signal, verb: 'patch' });
}

/**
 * Deletes an object. Returns the object while finalizers hold it (or as the server reports it
 * deleted), or the server's `Status`, as Kubernetes answers.
 */
export async function deleteObject<T extends KubeObject>(client: KubeClient, resource: Resource<T>, ref: ObjectRef, options: DeleteOptions = {}): Promise<T | ApiStatus> {
  const path = objectPath(resource, ref.namespace, ref.name);
  const body = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  };
  return client.request<T | ApiStatus>('DELETE', path, { body, query: writeQuery(options), signal: options.signal, verb: 'delete' });
}

function objectPath(resource: Resource<KubeObject>, namespace: string | null | undefined, name: string, subresource?: string): string {
  requireNamespace(resource, namespace);
  return resourcePath(resource, { namespace, name, subresource });
}

function requireNamespace(resource: Resource<KubeObject>, namespace: string | null | undefined): void {
  if (resource.scope === 'Namespaced' && !namespace) throw new TypeError(`${resourceName(resource)} is namespaced: a namespace is required`);
}

function writeQuery(options: { dryRun?: boolean; fieldManager?: string }): Record<string, string | undefined> {
  return { dryRun: options.dryRun ? 'All' : undefined, fieldManager: options.fieldManager };
}

/** The object with `apiVersion` and `kind` set from the descriptor where it lacks them. */
export function withTypeMeta<T extends KubeObject>(resource: Resource<KubeObject>, object: T): T {
  return { ...object, apiVersion: object.apiVersion ?? apiVersionOf(resource), kind: object.kind ?? resource.kind };
}
