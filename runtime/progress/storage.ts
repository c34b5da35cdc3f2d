/**
 * The contracts of Kopf's pluggable storages, for handler progress and for the diff-base.
 * Storages never send anything: they read the body and write into the cycle's patch.
 */
import type { FieldSpec } from '../structs/diffs.ts';
import type { Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { Essence } from './essence.ts';
import type { ProgressRecord } from './records.ts';

/** Where handlers' progress records live on the object (Kopf's `ProgressStorage`). */
export interface ProgressStorage {
  /** The record of a handler id, or `null` if none is stored; `UnreadableStateError` if it cannot be read. */
  fetch(key: string, body: KubeObject): ProgressRecord | null;
  /** Writes the record into the patch. */
  store(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void;
  /** Removes the record: `null` in the patch if the body has it, dropped from the patch if only pending there. */
  purge(key: string, body: KubeObject, patch: Patch): void;
  /** Sets (or, with `null`, removes) the dummy field whose change provokes a new watch event. */
  touch(body: KubeObject, patch: Patch, value: string | null): void;
  /** A copy of the essence without this storage's own fields, so they never count as changes. */
  clear(essence: Essence): Essence;
  /** For storages that batch writes; Kopf's own do nothing. */
  flush(): void;
  /**
   * Optional: `store` for a record that is purged right after (its cycle ends in the pass that
   * changed it). After the purge, the patch must be what `store` would have left; a storage can
   * leave out the work of writing the record only to take it out again. Without it, `store` is
   * called.
   */
  storePurged?(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void;
}

/** Stores a record that the same patch purges right after: by the storage's shortcut, if it has one. */
export function storePurged(
  storage: ProgressStorage,
  key: string,
  record: ProgressRecord,
  body: KubeObject,
  patch: Patch,
): void {
  if (storage.storePurged) storage.storePurged(key, record, body, patch);
  else storage.store(key, record, body, patch);
}

/** Where the last handled essence lives on the object (Kopf's `DiffBaseStorage`). */
export interface DiffBaseStorage {
  /** The essence of the body, as this storage would store it. */
  build(body: KubeObject, extraFields?: Iterable<FieldSpec> | null): Essence;
  /** The stored essence, or `null` if the object was never handled; `UnreadableStateError` if it cannot be read. */
  fetch(body: KubeObject): Essence | null;
  store(body: KubeObject, patch: Patch, essence: Essence): void;
}
