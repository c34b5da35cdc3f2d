/**
 * Diff-base storages: where the last handled essence is kept (as in Kopf's
 * `kopf/_cogs/configs/diffbase.py`). Kopf's default is the annotation
 * `kopf.zalando.org/last-handled-configuration` holding compact JSON and a newline (as kubectl's
 * last-applied-configuration, for readable `kubectl` output).
 */
import { ensureField, isMapping, removeField, resolveField, type FieldPath, type FieldSpec } from '../structs/diffs.ts';
import { patchContent, type Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { DEFAULT_PREFIX } from './annotations.ts';
import { buildEssence, removeAnnotations, removeEmptyStanzas, type Essence } from './essence.ts';
import { storageKeys } from './keys.ts';
import { storeMarker } from './managed-prefixes.ts';
import { pythonJson } from './python.ts';
import { namedField } from './status.ts';
import type { DiffBaseStorage } from './storage.ts';
import { DIFFBASE_REMEDY, parseStored, UnreadableStateError } from './unreadable.ts';

export interface AnnotationsDiffBaseOptions {
  readonly prefix?: string;
  /** The annotation's name: `last-handled-configuration`. */
  readonly key?: string;
  /** Fields never counted as changes. */
  readonly ignoredFields?: Iterable<FieldSpec> | null;
  /** Also write the V1 key (default: true, as in Kopf). */
  readonly v1?: boolean;
}

export class AnnotationsDiffBaseStorage implements DiffBaseStorage {
  readonly prefix: string;
  readonly key: string;
  readonly ignoredFields: readonly FieldSpec[];
  readonly v1: boolean;

  constructor(options: AnnotationsDiffBaseOptions = {}) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.key = options.key ?? 'last-handled-configuration';
    this.ignoredFields = [...(options.ignoredFields ?? [])];
    this.v1 = options.v1 ?? true;
    if (!this.prefix) throw new TypeError('Annotations storages must be prefixed.');
  }

  keys(body?: KubeObject | null): readonly string[] {
    return storageKeys(this.prefix, this.key, { v1: this.v1, body });
  }

  build(body: KubeObject, extraFields?: Iterable<FieldSpec> | null): Essence {
    const essence = buildEssence(body, { extraFields, ignoredFields: this.ignoredFields });
    // The essence comes without empty stanzas; removing the ignored fields or our keys may leave some.
    if (removeAnnotations(essence, this.keys(body)) || this.ignoredFields.length) removeEmptyStanzas(essence);
    return essence;
  }

  fetch(body: KubeObject): Essence | null {
    for (const key of this.keys(body)) {
      const essence = storedEssence(resolveField(body, ['metadata', 'annotations', key], null), `annotation ${key}`);
      if (essence !== null) return essence;
    }
    return null;
  }

  store(body: KubeObject, patch: Patch, essence: Essence): void {
    const encoded = `${pythonJson(essence)}\n`;
    for (const key of this.keys(body)) patch.metadata.annotations[key] = encoded;
    storeMarker(this.prefix, patch, body);
  }
}

/** The essence a diff-base storage kept as JSON text at `where`; `null` if there is none. */
function storedEssence(encoded: unknown, where: string): Essence | null {
  if (encoded === null || encoded === undefined) return null;
  if (typeof encoded !== 'string') throw new UnreadableStateError(where, 'is not a string of JSON', DIFFBASE_REMEDY);
  const essence = parseStored(encoded, where, DIFFBASE_REMEDY);
  if (essence === null || isMapping(essence)) return essence;
  throw new UnreadableStateError(where, 'is not a diff-base: a JSON object is expected', DIFFBASE_REMEDY);
}

export interface StatusDiffBaseOptions {
  readonly name?: string;
  /** `status.{name}.last-handled-configuration` by default. */
  readonly field?: string | FieldPath;
  readonly ignoredFields?: Iterable<FieldSpec> | null;
}

/** The essence as a JSON string (no newline) in a status field. */
export class StatusDiffBaseStorage implements DiffBaseStorage {
  readonly field: FieldPath;
  readonly ignoredFields: readonly FieldSpec[];

  constructor(options: StatusDiffBaseOptions = {}) {
    this.field = namedField(options.field ?? 'status.{name}.last-handled-configuration', options.name ?? 'kopf');
    this.ignoredFields = [...(options.ignoredFields ?? [])];
  }

  build(body: KubeObject, extraFields?: Iterable<FieldSpec> | null): Essence {
    const essence = buildEssence(body, { extraFields, ignoredFields: this.ignoredFields });
    removeField(essence, this.field);
    return essence;
  }

  fetch(body: KubeObject): Essence | null {
    return storedEssence(resolveField(body, this.field, null), `field ${this.field.join('.')}`);
  }

  store(_body: KubeObject, patch: Patch, essence: Essence): void {
    ensureField(patchContent(patch), this.field, pythonJson(essence));
  }
}

/** Writes to all storages, reads the first that has an essence. */
export class MultiDiffBaseStorage implements DiffBaseStorage {
  readonly storages: readonly DiffBaseStorage[];

  constructor(storages: readonly DiffBaseStorage[]) {
    this.storages = storages;
  }

  build(body: KubeObject, extraFields?: Iterable<FieldSpec> | null): Essence {
    const fields = extraFields ? [...extraFields] : null;
    // Each storage cleans its own fields from what is left of the body so far.
    return this.storages.reduce(
      (essence, storage) => storage.build(essence, fields),
      buildEssence(body, { extraFields: fields }),
    );
  }

  fetch(body: KubeObject): Essence | null {
    for (const storage of this.storages) {
      const essence = storage.fetch(body);
      if (essence !== null) return essence;
    }
    return null;
  }

  store(body: KubeObject, patch: Patch, essence: Essence): void {
    for (const storage of this.storages) storage.store(body, patch, essence);
  }
}
