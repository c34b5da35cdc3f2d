/**
 * Listing in pages (`limit`/`continue`), so that neither the API server nor this process holds a
 * whole large collection in one response. A continue token expires (410) when etcd compacts past
 * the list's snapshot; the listing then starts over, and consumers of pages learn it by `restarted`.
 */
import { apiVersionOf, resourcePath } from '../structs/resources.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from './client.ts';
import { isGone } from './api-errors.ts';
import type { ListResult } from './types.ts';

export interface ListOptions {
  /** One namespace; all namespaces if absent (and for cluster-scoped resources). */
  namespace?: string | null;
  labelSelector?: string;
  fieldSelector?: string;
  /** Objects per page; the client's `listPageSize` by default. */
  pageSize?: number;
  signal?: AbortSignal;
  /** Only the objects' metadata (`PartialObjectMetadataList`): less to send, hold and parse. */
  metadataOnly?: boolean;
}

/** What `Accept` asks for to list objects, or to get or watch one, as metadata only, whatever their kind. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
export const METADATA_ITEM = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export interface ListPage<T extends KubeObject> {
  items: T[];
  /** The resourceVersion of the listing's snapshot (the same on every page of one listing). */
  resourceVersion: string;
  /** True if this page starts the listing over: earlier pages must be forgotten. */
  restarted: boolean;
  /** True on the last page. */
  last: boolean;
}

interface ListResponse<T> {
  items?: T[] | null;
  metadata?: { resourceVersion?: string; continue?: string };
}

export async function* listPages<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T, FieldMap>,
  options: ListOptions = {},
): AsyncGenerator<ListPage<T>> {
  const path = resourcePath(resource, { namespace: options.namespace });
  const apiVersion = apiVersionOf(resource);
  const restartBudget = client.settings.errorBackoffs.length + 1;
  let token: string | undefined;
  let restarted = false;
  for (let restarts = 0; ;) {
    let response: ListResponse<T>;
    try {
      response = await client.request<ListResponse<T>>('GET', path, {
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: options.pageSize ?? client.settings.listPageSize,
          continue: token,
        },
        signal: options.signal,
        verb: 'list',
        accept: options.metadataOnly ? METADATA_LIST : undefined,
      });
    } catch (e) {
      if (token === undefined || !isGone(e) || ++restarts > restartBudget) throw e;
      token = undefined;
      restarted = true;
      continue;
    }
    // Items of a list carry no type meta; the objects are fresh from JSON.parse, so they are completed in place.
    const items = response.items ?? [];
    for (const item of items) {
      item.apiVersion ??= apiVersion;
      item.kind ??= resource.kind;
    }
    token = response.metadata?.continue || undefined;
    yield { items, resourceVersion: response.metadata?.resourceVersion ?? '', restarted, last: token === undefined };
    restarted = false;
    if (token === undefined) return;
  }
}

/** The whole collection, read page by page. */
export async function listObjects<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T, FieldMap>,
  options: ListOptions = {},
): Promise<ListResult<T>> {
  let items: T[] = [];
  let resourceVersion = '';
  for await (const page of listPages(client, resource, options)) {
    if (page.restarted) items = [];
    items.push(...page.items);
    resourceVersion = page.resourceVersion;
  }
  return { items, resourceVersion };
}
