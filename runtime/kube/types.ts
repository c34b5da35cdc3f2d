/**
 * The contract of the API layer: what the engines above may ask of the cluster.
 * Implemented in this folder (`client.ts`, `objects.ts`, `listing.ts`, `watching/`, `discovery/`).
 */
import type { KubeObject } from '../structs/resources.ts';

/** The patch flavours Kubernetes accepts, by their content types. */
export type PatchType = 'merge' | 'json' | 'apply' | 'strategic';

/** RFC 6902 operations: one definition, with the patches they come from. */
export type { JsonPatchOp } from '../structs/patches.ts';

/** Kubernetes verbs, as counted by the client (one count per HTTP attempt). */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content type of the body; JSON by default. */
  contentType?: string;
  /** The `Accept` header, if not plain JSON (e.g. to ask for an object's metadata only). */
  accept?: string;
  /** Abort the request (and its retries). */
  signal?: AbortSignal;
  /** Overrides the client's retry policy for this request (e.g. `0` for none). */
  retries?: number;
  /** Overrides the client's total timeout of one attempt, in seconds. */
  timeout?: number;
  /** The verb to count this request under; derived from the HTTP method if absent. */
  verb?: Verb;
}

export interface ObjectRef {
  namespace?: string | null;
  name: string;
}

export interface ListResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * What a continuous watch yields. `LISTED` items come from the (re-)list that precedes a watch;
 * `LISTED_DONE` marks the end of one listing (the set of objects is complete at that point).
 * A `DELETED` event with `synthetic: true` comes from a re-list: the object was known before it
 * and is absent from it, so it was deleted while the watch was broken; `object` is its last known state.
 */
export type StreamEvent<T extends KubeObject> =
  | { type: 'LISTED'; object: T }
  | { type: 'LISTED_DONE'; resourceVersion: string }
  | { type: 'ADDED' | 'MODIFIED'; object: T }
  | { type: 'DELETED'; object: T; synthetic?: true }
  | { type: 'BOOKMARK'; resourceVersion: string };

/** A server-side apply body: the parts of the object this field manager owns, every field optional. */
export type ApplyPatch<T> = T extends readonly (infer U)[]
  ? ApplyPatch<U>[]
  : T extends object
    ? { -readonly [K in keyof T]?: ApplyPatch<T[K]> }
    : T;
