/**
 * Handler progress in `status.kopf.progress.<handler id>` (Kopf's `StatusProgressStorage`), the
 * pre-annotations format. Kopf 1.44 only reads it (`NoWriteStatusProgressStorage` inside the
 * smart storage), so that objects handled by old operators continue where they were.
 * It needs `x-kubernetes-preserve-unknown-fields` on `status`: else the API server prunes it.
 */
import {
  ensureField,
  hasField,
  isMapping,
  parseField,
  removeField,
  resolveField,
  type FieldPath,
} from '../structs/diffs.ts';
import { patchContent, type Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { copyAlong, hasEmptyStanzas, removeEmptyStanzas, type Essence } from './essence.ts';
import { checkedRecord, type ProgressRecord } from './records.ts';
import type { ProgressStorage } from './storage.ts';

export interface StatusProgressOptions {
  /** Substituted for `{name}` in the fields: `kopf` by default. */
  readonly name?: string;
  /** `status.{name}.progress` by default. */
  readonly field?: string | FieldPath;
  /** `status.{name}.dummy` by default. */
  readonly touchField?: string | FieldPath;
}

/** A field with `{name}` substituted (only in dotted strings, as Kopf does). */
export function namedField(field: string | FieldPath, name: string): FieldPath {
  return parseField(typeof field === 'string' ? field.replaceAll('{name}', name) : field);
}

export class StatusProgressStorage implements ProgressStorage {
  readonly field: FieldPath;
  readonly touchField: FieldPath;

  constructor(options: StatusProgressOptions = {}) {
    const name = options.name ?? 'kopf';
    this.field = namedField(options.field ?? 'status.{name}.progress', name);
    this.touchField = namedField(options.touchField ?? 'status.{name}.dummy', name);
  }

  fetch(key: string, body: KubeObject): ProgressRecord | null {
    const container = resolveField(body, this.field, {});
    const record = isMapping(container) ? container[key] : undefined;
    return record === undefined || record === null ? null : checkedRecord(
      record,
      `field ${[...this.field, key].join('.')}`,
    );
  }

  store(key: string, record: ProgressRecord, _body: KubeObject, patch: Patch): void {
    // The full record, `null`s included: Kubernetes drops them from the stored object.
    ensureField(patchContent(patch), [...this.field, key], structuredClone(record));
  }

  purge(key: string, body: KubeObject, patch: Patch): void {
    const content = patchContent(patch);
    const path = [...this.field, key];
    if (hasField(body, path)) ensureField(content, path, null);
    else if (hasField(content, path)) removeField(content, path);
  }

  /** Of a record stored and then purged, nothing stays. */
  storePurged(_key: string, _record: ProgressRecord, _body: KubeObject, _patch: Patch): void {}

  touch(body: KubeObject, patch: Patch, value: string | null): void {
    if ((resolveField(body, this.touchField, null) ?? null) !== value)
      ensureField(patchContent(patch), this.touchField, value);
  }

  clear(essence: Essence): Essence {
    // The essence holds no status unless a handler's field filter keeps a part of it.
    if (!hasField(essence, this.field) && !hasEmptyStanzas(essence)) return essence;
    const cleared: Essence = copyAlong(essence, ['metadata'], this.field);
    removeField(cleared, this.field);
    removeEmptyStanzas(cleared);
    return cleared;
  }

  flush(): void {}
}

/** Reads `status.kopf.progress` but never writes there: Kopf 1.44's legacy fallback. */
export class NoWriteStatusProgressStorage extends StatusProgressStorage {
  override store(_key: string, _record: ProgressRecord, _body: KubeObject, _patch: Patch): void {}
  override touch(_body: KubeObject, _patch: Patch, _value: string | null): void {}
}
