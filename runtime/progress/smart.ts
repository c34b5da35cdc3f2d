/**
 * Composite progress storages: `MultiProgressStorage` writes to all and reads the first that has
 * a record; `SmartProgressStorage`, Kopf's default, writes annotations and also reads the legacy
 * `status.kopf.progress`.
 */
import type { Patch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { AnnotationsProgressStorage, type AnnotationsProgressOptions } from './annotations.ts';
import type { Essence } from './essence.ts';
import type { ProgressRecord } from './records.ts';
import { NoWriteStatusProgressStorage, type StatusProgressOptions } from './status.ts';
import { storePurged, type ProgressStorage } from './storage.ts';

export class MultiProgressStorage implements ProgressStorage {
  readonly storages: readonly ProgressStorage[];

  constructor(storages: readonly ProgressStorage[]) {
    this.storages = storages;
  }

  fetch(key: string, body: KubeObject): ProgressRecord | null {
    for (const storage of this.storages) {
      const record = storage.fetch(key, body);
      if (record !== null) return record;
    }
    return null;
  }

  store(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void {
    for (const storage of this.storages) storage.store(key, record, body, patch);
  }

  purge(key: string, body: KubeObject, patch: Patch): void {
    for (const storage of this.storages) storage.purge(key, body, patch);
  }

  storePurged(key: string, record: ProgressRecord, body: KubeObject, patch: Patch): void {
    for (const storage of this.storages) storePurged(storage, key, record, body, patch);
  }

  touch(body: KubeObject, patch: Patch, value: string | null): void {
    for (const storage of this.storages) storage.touch(body, patch, value);
  }

  clear(essence: Essence): Essence {
    return this.storages.reduce((cleared, storage) => storage.clear(cleared), essence);
  }

  flush(): void {
    for (const storage of this.storages) storage.flush();
  }
}

export type SmartProgressOptions = AnnotationsProgressOptions & StatusProgressOptions;

export class SmartProgressStorage extends MultiProgressStorage {
  constructor(options: SmartProgressOptions = {}) {
    super([new AnnotationsProgressStorage(options), new NoWriteStatusProgressStorage(options)]);
  }
}
