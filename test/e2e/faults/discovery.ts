/**
 * Discovery with a part missing, as kube-apiserver answers for a moment after a restart while its
 * CRDs are still being loaded: a hidden group is absent from `/apis` and its paths answer 404; a
 * hidden resource is absent from its group version's resource list. The objects themselves (and
 * the CRDs) stay reachable: only discovery lies.
 */
import type { RequestInfo } from './matching.ts';

/** What to hide: a whole group, one version of it, or one resource (with its subresources). */
export interface Hidden {
  /** `''` for the core group (`/api/v1`). */
  group: string;
  version?: string;
  /** A plural name, e.g. `kopfexamples`. */
  resource?: string;
}

/** What the proxy does with a discovery request while some parts are hidden. */
export type DiscoveryAction = 'pass' | 'not-found' | 'rewrite';

interface DiscoveryPath {
  group: string | null;
  version: string | null;
}

/** `/apis` → group null; `/apis/g` → version null; `/apis/g/v` and `/api/v` → both; anything else: null. */
function discoveryPath(path: string): DiscoveryPath | null {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api') return parts.length === 2 ? { group: '', version: parts[1]! } : null;
  if (parts[0] !== 'apis' || parts.length > 3) return null;
  return { group: parts[1] ?? null, version: parts[2] ?? null };
}

function hidesVersion(hidden: Hidden, group: string, version: string | null): boolean {
  if (hidden.group !== group || hidden.resource !== undefined) return false;
  return hidden.version === undefined || hidden.version === version;
}

export function discoveryAction(hiddenParts: readonly Hidden[], request: RequestInfo): DiscoveryAction {
  if (request.method !== 'GET' || !hiddenParts.length) return 'pass';
  const where = discoveryPath(request.path);
  if (!where) return 'pass';
  if (where.group === null) return 'rewrite';
  const { group, version } = where;
  const hidesGroup = hiddenParts.some((h) => h.group === group && h.version === undefined && h.resource === undefined);
  if (hidesGroup || (version !== null && hiddenParts.some((h) => hidesVersion(h, group, version)))) return 'not-found';
  const touches = (h: Hidden): boolean =>
    h.group === group && (version === null || !h.version || h.version === version);
  const touched = hiddenParts.some(touches);
  return touched ? 'rewrite' : 'pass';
}

interface GroupVersionEntry { version: string }
interface GroupEntry { name: string; versions?: GroupVersionEntry[]; preferredVersion?: GroupVersionEntry }
interface ResourceEntry { name: string }

/** The discovery document without the hidden parts. */
export function rewriteDiscovery(hiddenParts: readonly Hidden[], path: string, document: unknown): unknown {
  const where = discoveryPath(path);
  if (!where || typeof document !== 'object' || document === null) return document;
  if (where.group === null) {
    const list = document as { groups?: GroupEntry[] };
    const groups = (list.groups ?? [])
      .map((g) => withoutHiddenVersions(hiddenParts, g))
      .filter((g) => g.versions?.length);
    return { ...list, groups };
  }
  if (where.version === null) return withoutHiddenVersions(hiddenParts, document as GroupEntry);
  const { group, version } = where;
  const hiddenResources = hiddenParts
    .filter((h) => h.group === group && h.resource !== undefined && (h.version === undefined || h.version === version))
    .map((h) => h.resource!);
  const list = document as { resources?: ResourceEntry[] };
  const visible = (entry: ResourceEntry): boolean => !hiddenResources.includes(entry.name.split('/')[0]!);
  return { ...list, resources: (list.resources ?? []).filter(visible) };
}

function withoutHiddenVersions(hiddenParts: readonly Hidden[], group: GroupEntry): GroupEntry {
  const hides = (v: GroupVersionEntry): boolean => hiddenParts.some((h) => hidesVersion(h, group.name, v.version));
  const versions = (group.versions ?? []).filter((v) => !hides(v));
  const preferred = versions.find((v) => v.version === group.preferredVersion?.version) ?? versions[0];
  return { ...group, versions, ...(preferred ? { preferredVersion: preferred } : {}) };
}
