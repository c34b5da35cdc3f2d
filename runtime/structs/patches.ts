/**
 * The patch handlers and the framework fill during one handling cycle, as Kopf's `Patch`:
 * a JSON merge patch (RFC 7386) with views for `metadata` (alias `meta`, with `labels` and
 * `annotations`), `spec` and `status` that create their parents on first write, plus `fns`:
 * transformations applied to a copy of the freshest body, sent as a JSON patch (RFC 6902)
 * guarded by a `test` of `metadata.resourceVersion`.
 *
 * `new Patch()` is a `Proxy` over its merge-patch content, so `JSON.stringify(patch)` is the merge
 * patch and `patch.data = …` sets any other top-level field. The framework reads and edits it
 * through the functions here, never through extra properties (which could clash with fields).
 */
import type { FieldPath } from './diffs.ts';
import { ensureField, isMapping, jsonEqual, removeField, resolveField, setKey } from './diffs.ts';
import type { JsonValue, KubeObject, MergePatch, ObjectMeta } from './resources.ts';

/** One operation of a JSON patch (RFC 6902). */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'test' | 'move' | 'copy';
  path: string;
  value?: JsonValue;
  from?: string;
}

/**
 * A transformation of the object's body, run on a deep copy of the freshest body when the patch
 * is applied (and again after a conflict): it must be idempotent. Declared through a method so
 * that a `Patch<Typed>` can be passed where a `Patch` is expected.
 */
export type PatchFn<T extends KubeObject = KubeObject> = { transform(body: T): void }['transform'];

/** A mapping of a patch's content (a merge patch, or its status part). */
export type Fields = { [key: string]: unknown };
type Part<T, K extends string> = T extends { [P in K]?: infer V } ? V : unknown;
/** The merge-patch shape of one section of the object, or open fields if it is not typed. */
export type PatchSection<V> = unknown extends V ? Fields : NonNullable<MergePatch<V>> extends infer S extends object ? S
  : Fields;

/** `patch.metadata`: the merge patch of `ObjectMeta`, with `labels`/`annotations` as views. */
export type MetaPatch = Omit<PatchSection<ObjectMeta>, 'labels' | 'annotations'> & {
  readonly labels: { [key: string]: string | null };
  readonly annotations: { [key: string]: string | null };
};

/** Like `Omit`, but keeps the other keys of types with an index signature (as `KubeObject`'s). */
type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };

export type Patch<T extends KubeObject = KubeObject> =
  Without<MergePatch<T>, 'metadata' | 'meta' | 'spec' | 'status' | 'fns'> & {
  readonly metadata: MetaPatch;
  readonly meta: MetaPatch;
  readonly spec: PatchSection<Part<T, 'spec'>>;
  readonly status: PatchSection<Part<T, 'status'>>;
  readonly fns: PatchFn<T>[];
};

interface PatchInternals {
  readonly content: Fields;
  readonly fns: PatchFn<KubeObject>[];
  readonly body: KubeObject | undefined;
}

/** Where a patch's proxy answers with its internals (a symbol of this module: no field can clash). */
const INTERNALS = Symbol('patch internals');

function internalsOf(value: object): PatchInternals | undefined {
  return (value as { [INTERNALS]?: PatchInternals })[INTERNALS];
}

export interface PatchOptions<T extends KubeObject> {
  /** The body the patch is for: the reference of `toJsonPatch` when no fresher body is given. */
  body?: T;
  fns?: readonly PatchFn<T>[];
}

export interface PatchConstructor {
  /**
   * A new patch, optionally with merge-patch content (copied), transformations, and its body.
   * Given another patch, it copies that patch's content, fns and body.
   */
  new <T extends KubeObject = KubeObject>(
    content?: MergePatch<T> | Patch<T> | Fields,
    options?: PatchOptions<T>,
  ): Patch<T>;
}

export const Patch: PatchConstructor = function Patch(content: Fields = {}, options: PatchOptions<KubeObject> = {}) {
  if (new.target === undefined) throw new TypeError('Patch is a constructor: use `new Patch()`.');
  // A patch given as content is copied with its fns (a proxy cannot be structured-cloned).
  const source = internalsOf(content);
  const copied = source ? source.content : content;
  const state: PatchInternals = {
    // The framework makes a patch per event and per handler, mostly empty: no clone for nothing.
    content: Object.keys(copied).length ? structuredClone(copied) : {},
    fns: [...(source?.fns ?? []), ...(options.fns ?? [])],
    body: options.body ?? source?.body,
  };
  // Each made on first use: most patches are never read or written through their views.
  const views: Fields = {};
  return new Proxy(state.content, {
    get(target, prop, receiver) {
      if (prop === INTERNALS) return state;
      if (prop === 'fns') return state.fns;
      if (typeof prop === 'string' && Object.hasOwn(SECTIONS, prop)) {
        const section = prop === 'meta' ? 'metadata' : prop;
        return (
          views[section] ??= section === 'metadata' ? sectionView(
            state.content,
            ['metadata'],
            ['labels', 'annotations'],
          ) : sectionView(state.content, [section])
        );
      }
      return Reflect.get(target, prop, receiver);
    },
    set(target, prop, value) {
      if (prop === 'fns') throw new TypeError('patch.fns cannot be replaced; push to it.');
      if (typeof prop === 'symbol') return Reflect.set(target, prop, value);
      setKey(target, prop === 'meta' ? 'metadata' : prop, value);
      return true;
    },
  });
} as unknown as PatchConstructor;

/** The top-level keys answered by views rather than by the content. */
const SECTIONS = { metadata: true, meta: true, spec: true, status: true };

/**
 * A live view of the section at `path`: reading resolves it now (absent → `undefined`), writing
 * creates the section. The `nested` keys answer with views of their own, made on first use.
 */
function sectionView(root: Fields, path: FieldPath, nested: readonly string[] = []): Fields {
  const here = (): Fields | undefined => {
    const value = resolveField(root, path);
    return isMapping(value) ? value : undefined;
  };
  const subviews: Fields = {};
  return new Proxy({}, {
    get(_, prop) {
      if (typeof prop !== 'string') return undefined;
      if (nested.includes(prop)) return (subviews[prop] ??= sectionView(root, [...path, prop]));
      return here()?.[prop];
    },
    set(_, prop, value) {
      ensureField(root, [...path, String(prop)], value);
      return true;
    },
    deleteProperty(_, prop) {
      const section = here();
      if (section) delete section[String(prop)];
      return true;
    },
    has(_, prop) {
      const section = here();
      return typeof prop === 'string' && section !== undefined && Object.hasOwn(section, prop);
    },
    ownKeys() {
      return Object.keys(here() ?? {});
    },
    getOwnPropertyDescriptor(_, prop) {
      const section = here();
      if (typeof prop !== 'string' || !section || !Object.hasOwn(section, prop)) return undefined;
      return { value: section[prop], writable: true, enumerable: true, configurable: true };
    },
  });
}

function stateOf(patch: object): PatchInternals {
  const state = internalsOf(patch);
  if (!state) throw new TypeError('Not a patch made by `new Patch()`.');
  return state;
}

export function isPatch(value: unknown): value is Patch {
  return typeof value === 'object' && value !== null && internalsOf(value) !== undefined;
}

/** The live merge-patch content (edits to it are edits to the patch). */
export function patchContent(patch: Patch): Fields {
  return stateOf(patch).content;
}

/** The body the patch was created for, if given (the reference for its JSON patch). */
export function patchBody(patch: Patch): KubeObject | undefined {
  return stateOf(patch).body;
}

/** Kopf's `bool(patch)` negated: no merge-patch content and no transformations. */
export function isEmptyPatch(patch: Patch): boolean {
  const state = stateOf(patch);
  return Object.keys(state.content).length === 0 && state.fns.length === 0;
}

/** Drops all content and transformations. */
export function clearPatch(patch: Patch): void {
  const state = stateOf(patch);
  for (const key of Object.keys(state.content)) delete state.content[key];
  state.fns.length = 0;
}

/**
 * Applies a merge patch in place, as Kopf does before running `fns`: `null` removes a field
 * (and parents left empty), mappings merge key by key, anything else (lists too) replaces.
 */
export function applyMergePatch(target: Fields, mergePatch: unknown, path: FieldPath = []): void {
  if (mergePatch === null) {
    if (path.length > 0) removeField(target, path);
  } else if (isMapping(mergePatch)) {
    for (const [key, value] of Object.entries(mergePatch)) {
      if (value !== undefined) applyMergePatch(target, value, [...path, key]);
    }
  } else if (path.length > 0) {
    ensureField(target, path, structuredClone(mergePatch));
  }
}

/**
 * One merge patch with the effect of `first` then `second` (RFC 7386 composed): mappings merge key
 * by key, anything else of `second` (a `null` too: it removes) replaces. Neither is changed.
 */
export function composeMergePatches(first: Fields, second: Fields): Fields {
  const composed: Fields = { ...first };
  for (const [key, value] of Object.entries(second)) {
    if (value === undefined) continue;
    const before = composed[key];
    composed[key] = isMapping(before) && isMapping(value) ? composeMergePatches(before, value) : value;
  }
  return composed;
}

/**
 * The JSON patch that turns `body` (by default, the body the patch was created for) into
 * `body` + merge-patch content + `fns`. No `test` op: see `guardedJsonPatch`.
 */
export function toJsonPatch(patch: Patch, body?: KubeObject): JsonPatchOp[] {
  const state = stateOf(patch);
  if (isEmptyPatch(patch)) return [];
  const base = body ?? state.body;
  if (base === undefined) throw new TypeError('Cannot build a JSON patch without the original body as a reference.');
  const transformed = structuredClone(base);
  applyMergePatch(transformed, state.content);
  for (const fn of state.fns) fn(transformed);
  return jsonDiff(base, transformed);
}

/** Ops to turn `a` into `b`: mappings key by key, lists by index (common head and tail kept). */
export function jsonDiff(a: unknown, b: unknown, pointer = ''): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  diffValues(a, b, pointer, ops);
  return ops;
}

function diffValues(a: unknown, b: unknown, pointer: string, ops: JsonPatchOp[]): void {
  if (isMapping(a) && isMapping(b)) {
    for (const key of Object.keys(a)) {
      if (a[key] === undefined) continue;
      if (b[key] === undefined) ops.push({ op: 'remove', path: `${pointer}/${escapePointer(key)}` });
    }
    for (const key of Object.keys(b)) {
      if (b[key] === undefined) continue;
      const path = `${pointer}/${escapePointer(key)}`;
      if (a[key] === undefined) ops.push({ op: 'add', path, value: asJson(b[key]) });
      else diffValues(a[key], b[key], path, ops);
    }
  } else if (Array.isArray(a) && Array.isArray(b)) {
    diffArrays(a, b, pointer, ops);
  } else if (!jsonEqual(a, b)) {
    ops.push({ op: 'replace', path: pointer, value: asJson(b) });
  }
}

function diffArrays(a: unknown[], b: unknown[], pointer: string, ops: JsonPatchOp[]): void {
  let start = 0;
  while (start < a.length && start < b.length && jsonEqual(a[start], b[start])) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && jsonEqual(a[endA - 1], b[endB - 1])) { endA--; endB--; }
  const paired = Math.min(endA, endB) - start;
  for (let i = start; i < start + paired; i++) diffValues(a[i], b[i], `${pointer}/${i}`, ops);
  // Removals go from the end so that earlier indices stay valid; additions go forward.
  for (let i = endA - 1; i >= start + paired; i--) ops.push({ op: 'remove', path: `${pointer}/${i}` });
  for (let i = start + paired; i < endB; i++) ops.push({ op: 'add', path: `${pointer}/${i}`, value: asJson(b[i]) });
}

function asJson(value: unknown): JsonValue {
  return structuredClone(value) as JsonValue;
}

/** A key as one JSON-pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The ops prefixed with Kopf's optimistic-concurrency guard: a `test` that the object is still at
 * the `resourceVersion` the ops were computed against. No ops, no request: `[]`.
 */
export function guardedJsonPatch(
  ops: readonly JsonPatchOp[],
  resourceVersion: string | null | undefined,
): JsonPatchOp[] {
  if (ops.length === 0) return [];
  return [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion ?? null }, ...ops];
}

/** Splits ops into those for the main endpoint and those for the `status` subresource. */
export function splitStatusOps(ops: readonly JsonPatchOp[], statusSubresource: boolean): {
  body: JsonPatchOp[];
  status: JsonPatchOp[]
} {
  if (!statusSubresource) return { body: [...ops], status: [] };
  const isStatus = (op: JsonPatchOp) => op.path === '/status' || op.path.startsWith('/status/');
  return { body: ops.filter((op) => !isStatus(op)), status: ops.filter(isStatus) };
}

/**
 * Splits merge-patch content into the patch for the object's URL and the one for its `status`
 * subresource (`{status: …}`), as Kopf sends them; `null` where there is nothing to send.
 * With a status subresource, a `status: null` is dropped, as in Kopf.
 */
export function splitMergePatch(content: Fields, statusSubresource: boolean): {
  body: Fields | null;
  status: Fields | null
} {
  if (!statusSubresource || !Object.hasOwn(content, 'status')) {
    return { body: Object.keys(content).length > 0 ? { ...content } : null, status: null };
  }
  // Copied key by key rather than copied whole and deleted from: an object with a deleted key is
  // slower to read and to encode.
  const body: Fields = {};
  for (const key of Object.keys(content)) if (key !== 'status') setKey(body, key, content[key]);
  const value = content.status;
  const status = value !== null && value !== undefined ? { status: value } : null;
  return { body: Object.keys(body).length > 0 ? body : null, status };
}
