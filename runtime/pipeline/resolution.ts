/**
 * Which resources an operator serves: the descriptors of its handlers as they are, and the names
 * (`'kopfexamples'`, `'kopfexamples.kopf.dev'`) resolved through discovery, as Kopf scans; a name
 * served elsewhere later (another group, or another version) is followed there.
 */
import { UnresolvedResourceError, missingVerbs, resolveResource, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { describe, sameResource } from '../registry/registry.ts';
import type { ResourceRef } from '../registry/handlers.ts';
import { watchName } from '../watching/served.ts';

/** Serves each resource that can be now; returns the names that are not served (yet). */
export async function resolveResources(
  client: KubeClient, refs: readonly ResourceRef[], serve: (ref: ResourceRef, resource: ResourceDescriptor) => void,
  logger: Logger,
): Promise<string[]> {
  const unresolved: string[] = [];
  for (const ref of refs) {
    if (typeof ref !== 'string') {
      serve(ref, ref);
      continue;
    }
    try {
      serve(ref, await resolveResource(client, ref));
    } catch (error) {
      if (!(error instanceof UnresolvedResourceError)) throw error; // an outage is not a missing CRD
      const why = error.reason === 'ambiguous'
        ? 'Ambiguous resources will not be served (try specifying API groups)'
        : 'Unresolved resources cannot be served (try creating their CRDs)';
      logger.warning(`${why}: ${describe(ref)}: ${error.message}`);
      unresolved.push(ref);
    }
  }
  return unresolved;
}

/**
 * Whether a resource resolved by name can be served, as Kopf decides: it must be listed and watched,
 * and patched too if changing handlers, timers or daemons (which write progress, results and the
 * finalizer) are registered for it.
 */
export function servable(ref: ResourceRef, resource: ResourceDescriptor, patching: boolean, logger: Logger): boolean {
  const unwatchable = missingVerbs(resource, ['list', 'watch']);
  if (unwatchable.length) {
    const verbs = unwatchable.map((verb) => `${verb}ed`).join(' or ');
    logger.warning(`Non-watchable resources will not be served: ${describe(ref)} (it cannot be ${verbs}).`);
  } else if (patching && missingVerbs(resource, ['patch']).length) {
    const why = 'it has changing handlers, which write to the objects';
    logger.warning(`Non-patchable resources will not be served: ${describe(ref)} (${why}).`);
  } else {
    return true;
  }
  return false;
}

/**
 * For a resource named by a string whose descriptor is not served any more: resolves the name
 * again, as Kopf re-scans, and finds where the name is served now (another group, or another
 * version), if it can be served the same way there. Each place it cannot be served is reported
 * once.
 */
export class Relocation {
  readonly #client: KubeClient;
  readonly #name: string;
  readonly #patching: boolean;
  readonly #logger: Logger;
  readonly #refused = new Set<string>();

  constructor(client: KubeClient, name: string, patching: boolean, logger: Logger) {
    this.#client = client;
    this.#name = name;
    this.#patching = patching;
    this.#logger = logger;
  }

  /**
   * Where the resource is served now instead of `was`; `undefined` if nowhere else, or nowhere it
   * can be served. `moved`: whether another stream of the resource has followed it already.
   */
  async find(was: ResourceDescriptor, moved: () => boolean): Promise<ResourceDescriptor | undefined> {
    const name = this.#name, logger = this.#logger;
    let found: ResourceDescriptor;
    try {
      this.#client.discovery.invalidate(); // it still lists what is not served
      found = await resolveResource(this.#client, name);
    } catch (error) {
      // Not listed, or discovery itself failing (kube-apiserver restarting): the stream asks for
      // the resource again after its backoff, and resolves the name again if it is still missing.
      if (!(error instanceof UnresolvedResourceError)) {
        logger.debug(`Resolving ${describe(name)} again failed: ${thrownText(error)}`);
      }
      return undefined;
    }
    if (moved() || sameResource(found, was) || this.#refused.has(watchName(found))) return undefined;
    const served = `The resource ${describe(name)} is served as ${watchName(found)} now`;
    if (found.scope !== was.scope) {
      const scope = found.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced';
      logger.warning(`${served}, which is ${scope}: serving it takes a restart.`);
    } else if (servable(name, found, this.#patching, logger)) {
      logger.info(`${served}, not as ${watchName(was)}.`);
      return found;
    }
    this.#refused.add(watchName(found));
    return undefined;
  }
}
