/**
 * Resolving what a user writes (`kex`, `KopfExample`, `kopfexamples.kopf.dev`, `kopf.dev/v1/kopfexamples`,
 * kubectl's `kopfexamples.v1.kopf.dev`) to one served resource, by Kopf's rules: a name matches
 * a kind, plural, singular or short name; without a version only preferred versions count; a
 * match in the core group wins over matches elsewhere (`pods` is `v1/pods`, not metrics'); several
 * matches or none are errors that list the candidates.
 */
import { resourceName, type ResourceDescriptor } from '../../structs/resources.ts';
import type { KubeClient } from '../client.ts';
import type { DiscoveredResource } from './discovery.ts';

export interface ResourceSelector {
  /** `''` for the core group; any group if absent. */
  group?: string;
  /** The group's preferred version if absent. */
  version?: string;
  /** A kind, plural, singular or short name. */
  name: string;
}

export class UnresolvedResourceError extends Error {
  readonly selector: string;
  readonly reason: 'ambiguous' | 'absent';
  /** The matching resources (ambiguous), or the near misses in non-preferred versions (absent). */
  readonly candidates: readonly DiscoveredResource[];

  constructor(
    selector: string,
    reason: 'ambiguous' | 'absent',
    candidates: readonly DiscoveredResource[],
    unreadable: readonly string[],
  ) {
    const listed = candidates.map(resourceName).join(', ');
    const text = reason === 'ambiguous'
      ? `Resource ${JSON.stringify(selector)} is ambiguous: it matches ${listed}; name the group (e.g. ` +
        `${candidates[0] ? `${candidates[0].plural}.${candidates[0].group}` : 'name.group'})`
      : `Resource ${JSON.stringify(selector)} is not ` +
        `served${candidates.length ? `; it exists in versions that are not preferred: ${listed}` : ''}`;
    super(unreadable.length ? `${text} (API groups that could not be read: ${unreadable.join(', ')})` : text);
    this.name = 'UnresolvedResourceError';
    this.selector = selector;
    this.reason = reason;
    this.candidates = candidates;
  }
}

const VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/** Parses the string forms of a resource selector; throws on malformed ones. */
export function parseSelector(text: string): ResourceSelector {
  const malformed = () => new TypeError(`Malformed resource selector ${JSON.stringify(text)}`);
  if (text.includes('/')) {
    const parts = text.split('/');
    if (parts.some((p) => !p) || parts.length > 3) throw malformed();
    if (parts.length === 3) return { group: parts[0], version: parts[1], name: parts[2] };
    return VERSION.test(parts[0]) ? { group: '', version: parts[0], name: parts[1] } : {
      group: parts[0],
      name: parts[1],
    };
  }
  if (text.includes('.')) {
    const [name, ...rest] = text.split('.');
    if (!name || rest.some((p) => !p)) throw malformed();
    return VERSION.test(rest[0]) ? { group: rest.slice(1).join('.'), version: rest[0], name } : {
      group: rest.join('.'),
      name,
    };
  }
  if (!text) throw malformed();
  return { name: text };
}

/** Finds the one resource a selector means. The discovery cache is refreshed once if nothing matches. */
export async function resolveResource(
  client: KubeClient,
  selector: string | ResourceSelector,
): Promise<DiscoveredResource> {
  const parsed = typeof selector === 'string' ? parseSelector(selector) : selector;
  const text = typeof selector === 'string' ? selector : formatSelector(selector);
  let found = await search(client, parsed, false);
  if (found.matches.length === 0) {
    client.discovery.invalidate();
    found = await search(client, parsed, false);
  }
  const core = found.matches.filter((r) => r.group === '');
  const matches = core.length ? core : found.matches;
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw new UnresolvedResourceError(text, 'ambiguous', matches, found.unreadable);
  const near = parsed.version === undefined ? (await search(client, parsed, true)).matches : [];
  throw new UnresolvedResourceError(text, 'absent', near, found.unreadable);
}

/**
 * The verbs of `needed` that a resource lacks, as discovery reports its verbs; none for a
 * descriptor that did not come from discovery (a generated one), whose verbs are not known.
 */
export function missingVerbs(resource: ResourceDescriptor, needed: readonly string[]): string[] {
  const verbs = (resource as Partial<DiscoveredResource>).verbs;
  return verbs ? needed.filter((verb) => !verbs.includes(verb)) : [];
}

function matchesName(resource: DiscoveredResource, name: string): boolean {
  return resource.plural === name
    || resource.singular === name
    || resource.kind === name
    || resource.kind.toLowerCase() === name.toLowerCase()
    || (resource.shortNames ?? []).includes(name);
}

/** Matching resources in the targeted group-versions; `everyVersion` also searches non-preferred ones. */
async function search(client: KubeClient, selector: ResourceSelector, everyVersion: boolean): Promise<{
  matches: DiscoveredResource[];
  unreadable: string[]
}> {
  const groups = await client.discovery.groups();
  const targets: [string, string][] = [];
  for (const group of groups) {
    if (selector.group !== undefined && group.name !== selector.group) continue;
    if (selector.version !== undefined) {
      if (group.versions.includes(selector.version)) targets.push([group.name, selector.version]);
    } else if (everyVersion) {
      for (const version of group.versions) if (version !== group.preferredVersion) targets.push([group.name, version]);
    } else {
      targets.push([group.name, group.preferredVersion]);
    }
  }
  // A scan of every group tolerates unavailable aggregated APIs; a named group is read with retries.
  const retries = selector.group === undefined ? 0 : undefined;
  const unreadable: string[] = [];
  const lists = await Promise.all(targets.map(async ([group, version]) => {
    try {
      return await client.discovery.resources(group, version, { retries });
    } catch (e) {
      if (selector.group !== undefined) throw e;
      unreadable.push(group ? `${group}/${version}` : version);
      return [];
    }
  }));
  return { matches: lists.flat().filter((r) => matchesName(r, selector.name)), unreadable };
}

function formatSelector(selector: ResourceSelector): string {
  return [selector.group, selector.version, selector.name].filter((p) => p !== undefined).join('/');
}
