/**
 * Handler progress in annotations, Kopf's default (`AnnotationsProgressStorage`): one annotation
 * per handler, `<prefix>/<key>`, holding the record as compact JSON. See `keys.ts` for how keys
 * are formed and `managed-prefixes.ts` for the `kopf-managed` marker of non-`kopf.` prefixes.
 */
import { ensureField, hasField, isMapping, removeField, resolveField } from '../structs/diffs.ts';
import { patchContent, type Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { copyAlong, hasEmptyStanzas, removeAnnotations, removeEmptyStanzas, type Essence } from './essence.ts';
import { storageKeys } from './keys.ts';
import { storeMarker } from './managed-prefixes.ts';
import { decodeRecord, encodeRecord, type ProgressRecord } from './records.ts';
import type { ProgressStorage } from './storage.ts';

export const DEFAULT_PREFIX = 'kopf.zalando.org';
export const DEFAULT_TOUCH_KEY = 'touch-dummy';

export interface AnnotationsProgressOptions {
  /** `kopf.zalando.org` by default; must not be empty. */
  readonly prefix?: string;
  /** Also write `null` fields. */
  readonly verbose?: boolean;
  /** The touch annotation's name: `touch-dummy` (dashed, not dotted). */
  readonly touchKey?: string;
  /** Also write V1 keys, for operators on older Kopf versions (default: true, as in Kopf). */
  readonly v1?: boolean;
}

export class AnnotationsProgressStorage implements ProgressStorage {
  readonly prefix: string;
  readonly verbose: boolean;
  readonly touchKey: string;
  readonly v1: boolean;

  constructor(options: AnnotationsProgressOptions = {}) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.verbose = options.verbose ?? false;
    this.touchKey = options.touchKey ?? DEFAULT_TOUCH_KEY;
    this.v1 = options.v1 ?? true;
    if (!this.prefix) throw new TypeError('Annotations storages must be prefixed.');
  }

  /** The annotation keys of a record key, V2 first. */
  keys(key: string, body?: KubeObject | null): readonly string[] {
    return storageKeys(this.prefix, key, { v1: this.v1, body });
  }

  fetch(key: string, body: KubeObject): ProgressRecord | null {
    for (const full of this.keys(key, body)) {
      const encoded = resolveField(body, ['metadata', 'annotations', full], null);
      const record = typeof encoded === 'string' ? decodeRecord(encoded, `annotation ${full}`) : null;
      if (record !== null) return record;
    }
    return null;
  }

  store(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void {
    const encoded = encodeRecord(record, this.verbose);
    for (const full of this.keys(key, body)) patch.metadata.annotations[full] = encoded;
    storeMarker(this.prefix, patch, body);
  }

  purge(key: string, body: KubeObject, patch: Patch): void {
    const content = patchContent(patch);
    for (const full of this.keys(key, body)) {
      const path = ['metadata', 'annotations', full];
      if (hasField(body, path)) ensureField(content, path, null);
      else if (hasField(content, path)) removeField(content, path);
    }
  }

  /** Of a record stored and then purged, only the marker stays (for prefixes that get one). */
  storePurged(_key: string, _record: ProgressRecord, body: KubeObject, patch: Patch): void {
    storeMarker(this.prefix, patch, body);
  }

  touch(body: KubeObject, patch: Patch, value: string | null): void {
    for (const full of this.keys(this.touchKey, body)) {
      if ((resolveField(body, ['metadata', 'annotations', full], null) ?? null) !== value) {
        patch.metadata.annotations[full] = value;
        storeMarker(this.prefix, patch, body);
      }
    }
  }

  clear(essence: Essence): Essence {
    const annotations = resolveField(essence, ['metadata', 'annotations']);
    const ours = `${this.prefix}/`;
    const keys = isMapping(annotations) ? Object.keys(annotations).filter((key) => key.startsWith(ours)) : [];
    // The essence's builder drops the annotations of Kopf-based operators already: mostly none is left.
    if (!keys.length && !hasEmptyStanzas(essence)) return essence;
    const cleared: Essence = copyAlong(essence, ['metadata', 'annotations']);
    removeAnnotations(cleared, keys);
    removeEmptyStanzas(cleared);
    return cleared;
  }

  flush(): void {}
}
