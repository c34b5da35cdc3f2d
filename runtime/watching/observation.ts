/**
 * Observing the cluster's namespaces for glob patterns (`-n 'app-*'`): namespaces that appear
 * and match are served, namespaces that vanish are dropped. Without the right to list
 * namespaces, only the patterns that are plain names are served, as Kopf does.
 */
import { Namespaces } from '../structs/builtins.ts';
import { isForbidden, isOrWraps, watchStream, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { isGlob, matchesNamespace } from './namespaces.ts';

export interface NamespaceEvents {
  added(namespace: string): void;
  removed(namespace: string): void;
}

export async function observeNamespaces(
  client: KubeClient,
  patterns: readonly string[],
  events: NamespaceEvents,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  const served = new Set<string>();
  try {
    for await (const event of watchStream(client, Namespaces, { signal })) {
      if (event.type === 'LISTED_DONE' || event.type === 'BOOKMARK') continue;
      const name = event.object.metadata?.name ?? '';
      const present = event.type !== 'DELETED' && matchesNamespace(name, patterns);
      if (present && !served.has(name)) { served.add(name); events.added(name); }
      if (!present && served.has(name)) { served.delete(name); events.removed(name); }
    }
  } catch (error) {
    if (!isOrWraps(error, isForbidden)) throw error;
    const literal = patterns.filter((p) => !isGlob(p));
    const fallback = `the namespaces given literally: ${literal.join(', ') || 'none'}`;
    logger.warning(`Not enough permissions to list namespaces. Falling back to ${fallback}.`);
    for (const name of literal) if (!served.has(name)) { served.add(name); events.added(name); }
  }
}
