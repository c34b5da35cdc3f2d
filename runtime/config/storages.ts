/**
 * The storage types the persistence settings hold. The storages themselves live in
 * runtime/progress/ (a lower layer); until they land, these are the shapes settings rely on.
 */

/** Where handler progress is kept on the object (Kopf's `ProgressStorage`). */
export interface ProgressStorage {
  readonly kind: string;
}

/** Where the last handled state is kept on the object (Kopf's `DiffBaseStorage`). */
export interface DiffBaseStorage {
  readonly kind: string;
}

/** Kopf's default: progress in annotations, falling back to reading `status.kopf.progress`. */
export function defaultProgressStorage(): ProgressStorage {
  return { kind: 'smart' };
}

/** Kopf's default: `kopf.zalando.org/last-handled-configuration`. */
export function defaultDiffBaseStorage(): DiffBaseStorage {
  return { kind: 'annotations' };
}
