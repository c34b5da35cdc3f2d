/**
 * Writes the API server refuses as too large, and the one that can be foreseen. The API server
 * caps the total size of an object's annotations (all keys and values) at 256 KiB, the request
 * body at 3 MiB, and etcd the stored object at about 1.5 MiB. A refused write is not a failure
 * that passes: sent again, it is refused again. So it is reported once, with what was too large
 * and what to do, and not retried; and the records of a handler's success, when they cannot be
 * written, must not make the handler run again.
 *
 * The diff-base in annotations is the usual culprit: a copy of the object's essence, next to
 * `kubectl apply`'s own copy in `last-applied-configuration`. Its size is checked before the
 * write (`diffBaseOverflow`), and the cycle stores what fits instead (`changing.ts`).
 */
import { ApiError } from '../kube/index.ts';
import { isMapping, resolveField } from '../structs/diffs.ts';
import type { Fields } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';

/** The API server's limit on the total size of an object's annotations, keys and values, in bytes. */
export const ANNOTATIONS_LIMIT = 256 * 1024;

/** The annotations a merge patch sets (`null` removes one), if any. */
function annotationsOf(content: Fields): { [key: string]: unknown } {
  const annotations = resolveField(content, ['metadata', 'annotations']);
  return isMapping(annotations) ? annotations : {};
}

/** The annotations of the body once the merge patches are applied, and their total size in bytes. */
function annotationsAfter(
  body: KubeObject, contents: readonly Fields[],
): { sizes: Map<string, number>; total: number } {
  const values = new Map<string, unknown>(Object.entries(body.metadata?.annotations ?? {}));
  for (const content of contents) {
    for (const [key, value] of Object.entries(annotationsOf(content))) {
      if (value === null) values.delete(key); else values.set(key, value);
    }
  }
  const sizes = new Map<string, number>();
  let total = 0;
  for (const [key, value] of values) {
    const size = Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    sizes.set(key, size);
    total += size;
  }
  return { sizes, total };
}

/**
 * Whether the annotations may be over the limit: a UTF-16 unit is at most 3 bytes of UTF-8, so
 * most cycles are cleared by the strings' lengths, without measuring their bytes.
 */
function nearLimit(body: KubeObject, contents: readonly Fields[]): boolean {
  let units = unitsOf(body.metadata?.annotations ?? {});
  for (const content of contents) units += unitsOf(annotationsOf(content));
  return units * 3 > ANNOTATIONS_LIMIT;
}

function unitsOf(annotations: { [key: string]: unknown }): number {
  let units = 0;
  for (const key in annotations) {
    const value = annotations[key];
    units += key.length + (typeof value === 'string' ? value.length : 0);
  }
  return units;
}

/** What a diff-base write would take over the annotations' limit, and the annotation that makes it. */
export interface Overflow {
  /** The largest annotation the diff-base writes. */
  readonly annotation: string;
  readonly size: number;
  /** All annotations with it. */
  readonly total: number;
}

/**
 * Whether the diff-base's write (`diffBase`, after `before`) takes the annotations over the limit
 * when, without it, they stay within: then it is the diff-base that does not fit.
 */
export function diffBaseOverflow(body: KubeObject, before: readonly Fields[], diffBase: Fields): Overflow | undefined {
  if (!nearLimit(body, [...before, diffBase])) return undefined;
  const written = Object.entries(annotationsOf(diffBase)).filter(([, value]) => typeof value === 'string');
  if (!written.length) return undefined;
  const { sizes, total } = annotationsAfter(body, [...before, diffBase]);
  if (total <= ANNOTATIONS_LIMIT || annotationsAfter(body, before).total > ANNOTATIONS_LIMIT) return undefined;
  const [annotation] = written.map(([key]) => key).sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0));
  return { annotation: annotation!, size: sizes.get(annotation!) ?? 0, total };
}

/** KiB with one decimal, for messages. */
export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * The API server refused a write for its size: 413 (the request body, or etcd's limit on the
 * object), or 422 with a field "too long" (the annotations' total).
 */
export function isTooLarge(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 413) return true;
  const causes = error.details?.causes ?? [];
  if (error.status === 422) {
    return causes.some((cause) => cause.reason === 'FieldValueTooLong' && cause.field === 'metadata.annotations');
  }
  return /request is too large/i.test(error.message);
}

/** A write of the cycle that the API server refused as too large, with what it held. */
export class TooLargeError extends Error {
  /** What the write held: `the annotation kopf.zalando.org/create_fn (300.0 KiB)`, `the status`. */
  readonly what: string;
  constructor(what: string, cause: unknown) {
    const reason = cause instanceof ApiError ? cause.body?.message ?? cause.message : String(cause);
    super(`The API server refused to write ${what} as too large: ${reason}`, { cause });
    this.name = 'TooLargeError';
    this.what = what;
  }
}

/** What a refused merge patch held, in a few words: the largest annotations it set, or the part of the object. */
export function describeWrite(content: Fields, endpoint: 'object' | 'status'): string {
  const annotations = Object.entries(annotationsOf(content))
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, value]) => [key, Buffer.byteLength(key) + Buffer.byteLength(value)] as const)
    .sort((a, b) => b[1] - a[1]);
  if (annotations.length) return `the annotation ${annotations[0]![0]} (${kib(annotations[0]![1])})`;
  return endpoint === 'status' ? 'the status' : 'the patch of the object';
}
