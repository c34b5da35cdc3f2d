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
  /** The record of a handler id, or `null` if none is stored. */
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
   * Optional: `store` then `purge` of one record, for a cycle that ends in the pass that changed
   * the record. The result must be the same as the two calls'; a storage can leave out the work
   * of writing a record only to take it out again. Without it, the two are called.
   */
  storePurged?(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void;
}

/** Stores a record and purges it at once: what is left is what storing leaves besides the record. */
export function storePurged(storage: ProgressStorage, key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void {
  if (storage.storePurged) return storage.storePurged(key, record, body, patch);
  storage.store(key, record, body, patch);
  storage.purge(key, body, patch);
}

/** Where the last handled essence lives on the object (Kopf's `DiffBaseStorage`). */
export interface DiffBaseStorage {
  /** The essence of the body, as this storage would store it. */
  build(body: KubeObject, extraFields?: Iterable<FieldSpec> | null): Essence;
  /** The stored essence, or `null` if the object was never handled. */
  fetch(body: KubeObject): Essence | null;
  store(body: KubeObject, patch: Patch, essence: Essence): void;
}
