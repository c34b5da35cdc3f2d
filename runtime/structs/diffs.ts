/**
 * Kopf's diffs between two essences of an object, and the dotted field paths that name parts of
 * an object (`spec.a.b`).
 *
 * The rules are Kopf's, because handlers see these diffs and field handlers fire on them:
 * mappings are compared key by key and recursed into; lists and scalars are compared as wholes;
 * `null`/`undefined` mean "absent", so `{a: null}` and `{}` do not differ. Paths only descend
 * through mappings: a list or a scalar on the way means the field is absent.
 */

export type FieldPath = readonly string[];
/** A field as handlers name it: `'spec.a.b'`, `['spec', 'a', 'b']`, or nothing for the root. */
export type FieldSpec = string | FieldPath | null | undefined;

export type DiffOp = 'add' | 'change' | 'remove';
/** One change: the operation, where (empty = the root), the old and the new value. */
export type DiffItem = readonly [op: DiffOp, path: FieldPath, old: unknown, new: unknown];
export type Diff = readonly DiffItem[];

/**
 * Which side's fields count: `full` (both), `left` (only fields present in `a`: extra fields of
 * `b` are ignored), `right` (only fields present in `b`).
 */
export type DiffScope = 'full' | 'left' | 'right';

type Mapping = { [key: string]: unknown };

/** A JSON object (not an array, not null). */
export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `'spec.a.b'` → `['spec', 'a', 'b']`; arrays are taken as they are; nothing → the root. */
export function parseField(field: FieldSpec): FieldPath {
  if (field === null || field === undefined) return [];
  if (typeof field === 'string') return field.split('.');
  return [...field];
}

const ABSENT: unique symbol = Symbol('absent');

/** The path of a field for reading along it: a given array as it is, without the copy `parseField` makes. */
function pathOf(field: FieldSpec): FieldPath {
  return Array.isArray(field) ? field : parseField(field);
}

function lookup(obj: unknown, path: FieldPath): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isMapping(current) || !Object.hasOwn(current, key)) return ABSENT;
    current = current[key];
  }
  return current;
}

/** The value at a field, or `fallback` (`undefined` by default) if any part of the path is absent. */
export function resolveField(obj: unknown, field: FieldSpec, fallback?: unknown): unknown {
  const value = lookup(obj, pathOf(field));
  return value === ABSENT ? fallback : value;
}

/** Whether the field exists (even if its value is `null`). */
export function hasField(obj: unknown, field: FieldSpec): boolean {
  return lookup(obj, pathOf(field)) !== ABSENT;
}

/** Sets a field, creating the missing (or non-mapping) parents as empty mappings. */
export function ensureField(obj: Mapping, field: FieldSpec, value: unknown): void {
  const path = parseField(field);
  if (path.length === 0) throw new TypeError('Setting the root of an object is impossible; name a field.');
  let current = obj;
  for (let at = 0; at < path.length - 1; at++) {
    const key = path[at]!;
    // Own keys only: a `__proto__` on the path must name data, never the prototype.
    const next = Object.hasOwn(current, key) ? current[key] : undefined;
    if (isMapping(next)) {
      current = next;
    } else {
      const created: Mapping = {};
      setKey(current, key, created);
      current = created;
    }
  }
  setKey(current, path[path.length - 1]!, value);
}

/**
 * Removes a field, then every parent this left empty (as Kopf does, so that removing the last
 * annotation also drops `metadata.annotations`). Absent fields and non-mapping parents are no-ops.
 */
export function removeField(obj: Mapping, field: FieldSpec): void {
  const path = parseField(field);
  if (path.length === 0) throw new TypeError('Removing the root of an object is impossible; name a field.');
  removePath(obj, path, 0);
}

function removePath(obj: Mapping, path: FieldPath, at: number): void {
  const head = path[at]!;
  if (!Object.hasOwn(obj, head)) return;
  if (at === path.length - 1) {
    delete obj[head];
    return;
  }
  const child = obj[head];
  if (!isMapping(child)) return;
  removePath(child, path, at + 1);
  if (isEmptyMapping(child)) delete obj[head];
}

function isEmptyMapping(obj: Mapping): boolean {
  for (const key in obj) if (Object.hasOwn(obj, key)) return false;
  return true;
}

/**
 * A deep copy of JSON data (what a body parsed from the API is): mappings and arrays are copied,
 * everything else is shared. For the small values of every event, faster than `structuredClone`,
 * which serialises and deserialises.
 */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (!isMapping(value)) return value;
  const copy: Mapping = {};
  for (const key of Object.keys(value)) setKey(copy, key, copyJson(value[key]));
  return copy as T;
}

/**
 * The value as JSON text, or a `TypeError` that begins with `refusal` and says what JSON could not
 * carry (a BigInt, a cycle): the first line of `JSON.stringify`'s own message.
 */
export function jsonText(value: unknown, refusal: string): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`${refusal}: ${String((error as Error).message).split('\n')[0]}`);
  }
}

/** Sets a key of JSON data: a `__proto__` key parsed from JSON is data, and stays data. */
export function setKey(mapping: Mapping, key: string, value: unknown): void {
  // Assigning it would set the mapping's prototype instead.
  if (key === '__proto__')
    Object.defineProperty(mapping, key, { value, enumerable: true, writable: true, configurable: true });
  else mapping[key] = value;
}

/** Copies (deeply) the listed fields of JSON data `src` to `dst`; fields absent in `src` are skipped. */
export function cherrypick(src: unknown, dst: Mapping, fields: Iterable<FieldSpec> | null | undefined): void {
  for (const field of fields ?? []) {
    const value = lookup(src, pathOf(field));
    if (value !== ABSENT) ensureField(dst, field, copyJson(value));
  }
}

/** Structural equality of JSON values; `null`, `undefined` and absent keys are all "nothing". */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, false);
}

/**
 * With `booleansAsNumbers`, Python's `==` as Kopf's diff uses it: `true == 1`, `false == 0`
 * (so Kopf sees no change between them, and neither do we).
 */
function equal(a: unknown, b: unknown, booleansAsNumbers: boolean): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (booleansAsNumbers && isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => equal(item, b[i], booleansAsNumbers));
  }
  if (isMapping(a) && isMapping(b)) {
    const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
    const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
    if (keysA.length !== keysB.length) return false;
    return keysA.every((k) => b[k] !== undefined && equal(a[k], b[k], booleansAsNumbers));
  }
  return false;
}

function isNumeric(value: unknown): value is number | boolean {
  return typeof value === 'number' || typeof value === 'boolean';
}

/** Kopf's diff of two values (usually essences): see the module's notes for the rules. */
export function diff(a: unknown, b: unknown, options: { scope?: DiffScope; path?: FieldPath } = {}): Diff {
  const items: DiffItem[] = [];
  collect(a, b, [...(options.path ?? [])], options.scope ?? 'full', items);
  return items;
}

/**
 * Adds the items of the values at `path` to `into`. The path is one stack, extended and restored
 * along the walk, and copied only into an item: most walks (an unchanged object) make none.
 */
function collect(a: unknown, b: unknown, path: string[], scope: DiffScope, into: DiffItem[]): void {
  const absentA = a === null || a === undefined;
  const absentB = b === null || b === undefined;
  if (absentA && absentB) return;
  if (absentA) { into.push(['add', [...path], a ?? null, b]); return; }
  if (absentB) { into.push(['remove', [...path], a, b ?? null]); return; }
  if (isMapping(a) && isMapping(b)) {
    if (scope !== 'left') {
      for (const key of Object.keys(b)) if (!Object.hasOwn(a, key)) collectAt(null, b[key], key, path, scope, into);
    }
    if (scope !== 'right') {
      for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) collectAt(a[key], null, key, path, scope, into);
    }
    for (const key of Object.keys(a)) if (Object.hasOwn(b, key)) collectAt(a[key], b[key], key, path, scope, into);
    return;
  }
  if (!equal(a, b, true)) into.push(['change', [...path], a, b]);
}

function collectAt(a: unknown, b: unknown, key: string, path: string[], scope: DiffScope, into: DiffItem[]): void {
  path.push(key);
  collect(a, b, path, scope, into);
  path.pop();
}

/**
 * The diff as seen from a field: items inside the field are re-rooted at it; an item that
 * replaced a whole parent of the field is re-diffed down to the field's old and new values.
 */
export function reduceDiff(d: Diff, field: FieldSpec): Diff {
  const path = parseField(field);
  if (path.length === 0) return d.map(([op, itemPath, old, neu]) => [op, [...itemPath], old, neu] as const);
  const items: DiffItem[] = [];
  for (const [op, itemPath, old, neu] of d) {
    if (startsWith(itemPath, path)) {
      items.push([op, itemPath.slice(path.length), old, neu]);
    } else if (startsWith(path, itemPath)) {
      const tail = path.slice(itemPath.length);
      items.push(...diff(resolveField(old, tail, null), resolveField(neu, tail, null)));
    }
  }
  return items;
}

function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => path[i] === key);
}
