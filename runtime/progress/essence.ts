/**
 * The essence of an object: the part whose changes handlers react to (Kopf builds it in
 * `kopf/_cogs/configs/diffbase.py`).
 *
 * A copy of the body without `apiVersion`, `kind`, `metadata` and `status`; then labels and
 * annotations are put back, except annotations of Kopf-based operators (any prefix they manage,
 * see `managed-prefixes.ts`), kubectl's last-applied-configuration and a ring's seals, and labels except a ring's
 * (`SHARDING_LABEL_PREFIXES`: an object moved between replicas has not changed); then the extra fields handlers
 * declared (e.g. `status.phase` for a field handler); empty stanzas are dropped; ignored fields
 * are removed. Keys stay in Kopf's order, so that both write the same diff-base text.
 */
import { cherrypick, copyJson, isMapping, removeField, setKey, type FieldSpec } from '../structs/diffs.ts';
import type { KubeObject } from '../structs/resources.ts';
import { markedPrefixes } from './managed-prefixes.ts';

export type Essence = { [key: string]: unknown };

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The prefixes of the labels by which a ring of replicas places the objects (`runtime/sharding/`):
 * which replica an object is assigned to, and that it is moving away; the first is also the
 * prefix of the annotation that seals the assignment.
 */
export const SHARDING_LABEL_PREFIXES: readonly string[] = ['shard.kopf.zalando.org/', 'drain.kopf.zalando.org/'];
const OMITTED = new Set(['apiVersion', 'kind', 'metadata', 'status']);

export interface EssenceOptions {
  /** Fields kept although in `metadata`/`status` (declared by handlers of the resource). */
  readonly extraFields?: Iterable<FieldSpec> | null;
  /** Fields never counted as changes (the diff-base storage's `ignored_fields`). */
  readonly ignoredFields?: Iterable<FieldSpec> | null;
}

export function buildEssence(body: KubeObject | Essence, options: EssenceOptions = {}): Essence {
  // Copies only what stays: cloning the whole body would copy `metadata.managedFields` and
  // `status` on every event only to drop them. Key order is the body's, as Kopf's copy keeps it.
  const essence: Essence = {};
  for (const key in body) {
    if (Object.hasOwn(body, key) && !OMITTED.has(key)) setKey(essence, key, copyJson((body as Essence)[key]));
  }
  const metadata = essentialMetadata(body.metadata);
  if (metadata) essence.metadata = metadata;
  cherrypick(body, essence, options.extraFields);
  removeEmptyStanzas(essence);
  for (const field of options.ignoredFields ?? []) removeField(essence, field);
  return essence;
}

/**
 * The labels and the annotations of the metadata, copied without those that are no change (a
 * ring's labels, the annotations of Kopf-based operators and kubectl's copy of the object). Empty
 * stanzas are not made at all: deleting them after would slow down every later read of the essence.
 */
function essentialMetadata(metadata: unknown): Essence | undefined {
  if (!isMapping(metadata)) return undefined;
  const { labels, annotations } = metadata;
  const kept = {
    labels: isMapping(labels) ? copyKept(labels, (key) => !isShardingLabel(key)) : copyJson(labels),
    annotations: isMapping(annotations) ? copyKept(annotations, unmanaged(annotations)) : copyJson(annotations),
  };
  const essential: Essence = {};
  if (!isFalsy(kept.labels)) essential.labels = kept.labels;
  if (!isFalsy(kept.annotations)) essential.annotations = kept.annotations;
  return isFalsy(essential) ? undefined : essential;
}

function isShardingLabel(key: string): boolean {
  return SHARDING_LABEL_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** Which of these annotations are not some Kopf-based operator's, nor kubectl's copy of the object. */
function unmanaged(annotations: Essence): (key: string) => boolean {
  const ignored = [...markedPrefixes(Object.keys(annotations))].map((prefix) => `${prefix}/`);
  return (key) => key !== LAST_APPLIED && !isShardingLabel(key) && !ignored.some((prefix) => key.startsWith(prefix));
}

/** A copy of the mapping with only the keys that `kept` keeps (filtered while copied, not deleted after). */
function copyKept(mapping: Essence, kept: (key: string) => boolean): Essence {
  const copy: Essence = {};
  for (const key of Object.keys(mapping)) if (kept(key)) setKey(copy, key, copyJson(mapping[key]));
  return copy;
}

/**
 * A copy of the essence that may be changed along the `paths` without touching the original: the
 * mappings on them are copied, everything else is shared. Storages clear their own fields
 * from every event's essence, so a deep copy each time would be waste.
 */
export function copyAlong(essence: Essence, ...paths: (readonly string[])[]): Essence {
  const copy: Essence = { ...essence };
  const copied: unknown[] = [copy]; // a few mappings at most: a list is cheaper than a set
  for (const path of paths) {
    let node: Essence = copy;
    for (const key of path) {
      const child = node[key];
      if (!isMapping(child)) break;
      if (!copied.includes(child)) { node[key] = { ...child }; copied.push(node[key]); }
      node = node[key] as Essence;
    }
  }
  return copy;
}

/**
 * Removes these annotations in place (rebuilding the mapping, as Kopf does, only if one is there);
 * true if one was there.
 */
export function removeAnnotations(essence: Essence, keys: readonly string[]): boolean {
  const metadata = essence.metadata;
  const annotations = isMapping(metadata) ? metadata.annotations : undefined;
  if (!isMapping(metadata) || !isMapping(annotations)) return false;
  if (!keys.some((key) => Object.hasOwn(annotations, key))) return false;
  metadata.annotations = Object.fromEntries(Object.entries(annotations).filter(([key]) => !keys.includes(key)));
  return true;
}

/** Drops (in place) empty `metadata.annotations`, `metadata.labels`, `metadata` and `status`. */
export function removeEmptyStanzas(essence: Essence): void {
  const metadata = essence.metadata;
  if (isMapping(metadata)) {
    if (emptyAt(metadata, 'annotations')) delete metadata.annotations;
    if (emptyAt(metadata, 'labels')) delete metadata.labels;
  }
  if (emptyAt(essence, 'metadata')) delete essence.metadata;
  if (emptyAt(essence, 'status')) delete essence.status;
}

/** Whether `removeEmptyStanzas` would change the essence: storages copy it only then. */
export function hasEmptyStanzas(essence: Essence): boolean {
  const metadata = essence.metadata;
  if (isMapping(metadata) && (emptyAt(metadata, 'annotations') || emptyAt(metadata, 'labels'))) return true;
  return emptyAt(essence, 'metadata') || emptyAt(essence, 'status');
}

function emptyAt(mapping: Essence, key: string): boolean {
  return key in mapping && isFalsy(mapping[key]);
}

/** Python's falsiness, which Kopf's emptiness checks use: `null`, `false`, `0`, `''`, `[]`, `{}`. */
function isFalsy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isMapping(value)) return Object.keys(value).length === 0;
  return !value;
}
