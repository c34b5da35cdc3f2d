/**
 * What the API server serves: groups, their versions, and the resources of each group-version.
 * Cached per client, because resolving a resource by name reads every group; invalidated when
 * CRDs come and go (`invalidate()`), and by resolution itself when a name is not found.
 */
import type { ResourceDescriptor } from '../../structs/resources.ts';
import { isNotFound } from '../api-errors.ts';
import type { RequestOptions } from '../types.ts';

/**
 * The one thing discovery asks of the API client: a JSON request. The client owns its discovery
 * cache, so discovery names only this, not the client.
 */
export interface DiscoveryClient {
  request<R>(method: string, path: string, options?: RequestOptions): Promise<R>;
}

export interface ApiGroupInfo {
  /** `''` for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** A resource as discovery reports it: a descriptor plus the verbs it supports. */
export interface DiscoveredResource extends ResourceDescriptor {
  readonly singular: string;
  readonly verbs: readonly string[];
}

interface ApiVersions { versions?: string[] }
interface ApiGroupList {
  groups?: { name: string; versions?: { version: string }[]; preferredVersion?: { version: string } }[]
}
interface ApiResource {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}
interface ApiResourceList { resources?: ApiResource[] }

export class Discovery {
  readonly #client: DiscoveryClient;
  #groups: Promise<ApiGroupInfo[]> | undefined;
  readonly #resources = new Map<string, Promise<DiscoveredResource[]>>();

  constructor(client: DiscoveryClient) {
    this.#client = client;
  }

  /** All API groups, the core group first. */
  groups(): Promise<ApiGroupInfo[]> {
    this.#groups ??= this.#fetchGroups().catch((e: unknown) => {
      this.#groups = undefined;
      throw e;
    });
    return this.#groups;
  }

  /**
   * The resources of one group-version (without subresources, which are folded into
   * `subresources`); empty if the group-version is not served. `retries: 0` suits broad scans,
   * where one unavailable aggregated API must not stall the rest.
   */
  resources(group: string, version: string, options: { retries?: number } = {}): Promise<DiscoveredResource[]> {
    const key = `${group}/${version}`;
    let cached = this.#resources.get(key);
    if (!cached) {
      cached = this.#fetchResources(group, version, options.retries).catch((e: unknown) => {
        this.#resources.delete(key);
        throw e;
      });
      this.#resources.set(key, cached);
    }
    return cached;
  }

  /** Forgets everything: the next lookup asks the server again. */
  invalidate(): void {
    this.#groups = undefined;
    this.#resources.clear();
  }

  async #fetchGroups(): Promise<ApiGroupInfo[]> {
    const [core, named] = await Promise.all([
      this.#client.request<ApiVersions>('GET', '/api'),
      this.#client.request<ApiGroupList>('GET', '/apis'),
    ]);
    const coreVersions = core.versions ?? ['v1'];
    const groups: ApiGroupInfo[] = [{ name: '', versions: coreVersions, preferredVersion: coreVersions[0] }];
    for (const g of named.groups ?? []) {
      const versions = (g.versions ?? []).map((v) => v.version);
      groups.push({ name: g.name, versions, preferredVersion: g.preferredVersion?.version ?? versions[0] });
    }
    return groups;
  }

  async #fetchResources(group: string, version: string, retries: number | undefined): Promise<DiscoveredResource[]> {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    let list: ApiResourceList;
    try {
      list = await this.#client.request<ApiResourceList>('GET', path, { retries });
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
    const entries = list.resources ?? [];
    const subresources = new Map<string, string[]>();
    for (const entry of entries) {
      const [plural, sub] = entry.name.split('/', 2);
      if (sub) subresources.set(plural, [...(subresources.get(plural) ?? []), sub]);
    }
    return entries.filter((entry) => !entry.name.includes('/')).map((entry) => ({
      group,
      version,
      plural: entry.name,
      singular: entry.singularName || entry.kind.toLowerCase(),
      kind: entry.kind,
      scope: entry.namespaced ? 'Namespaced' : 'Cluster',
      shortNames: entry.shortNames ?? [],
      categories: entry.categories ?? [],
      subresources: subresources.get(entry.name) ?? [],
      verbs: entry.verbs ?? [],
    }));
  }
}
