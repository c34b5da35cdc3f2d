/**
 * Resources named by a string that were not served at the start are served as soon as their CRDs
 * are created. CRDs are watched, as Kopf does, and a name is resolved again when a CRD that could
 * be it appears or changes (it becomes Established a moment after it is created). Without the
 * right to list CRDs, the names stay unserved, with a warning. Never throws.
 */
import { CustomResourceDefinitions, type CustomResourceDefinition } from '../structs/builtins.ts';
import {
  UnresolvedResourceError, isForbidden, isOrWraps, parseSelector, resolveResource, watchStream, type DiscoveredResource, type KubeClient,
} from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';

export async function serveWhenCreated(
  client: KubeClient, names: readonly string[], serve: (name: string, resource: DiscoveredResource) => void, signal: AbortSignal, logger: Logger,
): Promise<void> {
  const pending = new Set(names);
  if (!pending.size) return;
  try {
    let listed = false;
    for await (const event of watchStream(client, CustomResourceDefinitions, { signal })) {
      if (event.type === 'LISTED_DONE') listed = true;
      // The listing is what the names were not found in at the start.
      if (!listed || !('object' in event) || event.type === 'DELETED') continue;
      for (const name of [...pending]) {
        if (!couldBe(event.object, name)) continue;
        const resource = await resolved(client, name);
        if (!resource) continue;
        pending.delete(name);
        serve(name, resource);
      }
      if (!pending.size) return;
    }
  } catch (error) {
    if (signal.aborted) return;
    // The served resources go on either way: only the late ones are given up.
    if (isOrWraps(error, isForbidden)) {
      logger.warning(`Not enough permissions to watch CRDs: these resources will not be served when their CRDs are created: ${[...pending].join(', ')}.`);
    } else {
      logger.error(`Watching CRDs failed: these resources will not be served when their CRDs are created: ${[...pending].join(', ')}.`, error);
    }
  }
}

/** Whether the CRD has the name and the group that the name asks for. */
function couldBe(crd: CustomResourceDefinition, name: string): boolean {
  const selector = parseSelector(name);
  const spec = crd.spec as { group?: string; names?: { plural?: string; singular?: string; kind?: string; shortNames?: string[] } } | undefined;
  if (selector.group !== undefined && selector.group !== spec?.group) return false;
  const names = spec?.names ?? {};
  return [names.plural, names.singular, names.kind, ...(names.shortNames ?? [])].some((n) => n !== undefined && n.toLowerCase() === selector.name.toLowerCase());
}

/** The resource, once discovery serves it; `undefined` while it does not yet. */
async function resolved(client: KubeClient, name: string): Promise<DiscoveredResource | undefined> {
  try {
    return await resolveResource(client, name);
  } catch (error) {
    if (error instanceof UnresolvedResourceError) return undefined;
    throw error;
  }
}
