/**
 * The contract of the API layer: what the engines above may ask of the cluster.
 * Implemented in this folder (`client.ts`, `listing.ts`, `watching.ts`, `discovery.ts`).
 */
import type { JsonValue, KubeObject, ResourceDescriptor } from '../structs/resources.ts';

/** The patch flavours Kubernetes accepts, by their content types. */
export type PatchType = 'merge' | 'json' | 'apply' | 'strategic';

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'test' | 'move' | 'copy';
  path: string;
  value?: JsonValue;
  from?: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content type of the body; JSON by default. */
  contentType?: string;
  /** Abort the request (and its retries). */
  signal?: AbortSignal;
  /** Overrides the client's retry policy for this request (e.g. `0` for none). */
  retries?: number;
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
 */
export type StreamEvent<T extends KubeObject> =
  | { type: 'LISTED'; object: T }
  | { type: 'LISTED_DONE'; resourceVersion: string }
  | { type: Exclude<WatchEventType, 'BOOKMARK'>; object: T }
  | { type: 'BOOKMARK'; resourceVersion: string };
