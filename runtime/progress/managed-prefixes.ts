/**
 * How Kopf-based operators recognise each other's annotations, so that one operator's stored
 * state never looks like an essential change to another (which would then store it in its own
 * diff-base, and so on, back and forth). A prefix is Kopf-managed if it is `kopf.zalando.org`,
 * ends in `.kopf.zalando.org`, or has a `<prefix>/kopf-managed` annotation, which storages with
 * a prefix not starting with `kopf.` write next to their keys.
 */
import { hasField } from '../structs/diffs.ts';
import type { Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';

export const MARKER_NAME = 'kopf-managed';
const KNOWN_PREFIXES = ['kopf.zalando.org'];

/** The prefixes among these annotation keys that belong to Kopf-based operators. */
export function markedPrefixes(keys: Iterable<string>): Set<string> {
  const prefixes = new Set<string>();
  for (const key of keys) {
    const slash = key.indexOf('/');
    if (slash < 0) continue;
    const prefix = key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (name === MARKER_NAME || KNOWN_PREFIXES.some((known) => prefix === known || prefix.endsWith(`.${known}`))) {
      prefixes.add(prefix);
    }
  }
  return prefixes;
}

/** Adds `<prefix>/kopf-managed: yes` unless the prefix is `kopf.…` or the marker is there already. */
export function storeMarker(prefix: string, patch: Patch, body: KubeObject): void {
  if (!prefix || prefix.startsWith('kopf.')) return;
  const marker = `${prefix}/${MARKER_NAME}`;
  if (!hasField(body, ['metadata', 'annotations', marker]) && !(marker in patch.metadata.annotations)) {
    patch.metadata.annotations[marker] = 'yes';
  }
}
