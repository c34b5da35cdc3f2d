/**
 * In-memory indexes (Kopf's `Index` and `Store`): an index maps keys to stores, a store holds the
 * values that the indexed objects gave under that key, one per object. Handlers only read them;
 * the writing side (`MutableIndex`) is the indexers' alone.
 *
 * Keys are compared by value, as Python compares Kopf's tuple keys: `index.get(['default', 'web'])`
 * finds what an index function put under `['default', 'web']`.
 */
import { isDeepStrictEqual } from 'node:util';

/** What an index is keyed by: text, numbers, booleans, `null` (for plain values), or tuples of them. */
export type IndexKey = string | number | boolean | null | readonly IndexKey[];

/** The values of one key, one per object that has it; unordered, as in Kopf. */
export interface Store<V> extends Iterable<V> {
  readonly size: number;
  /** Whether any object gave this value (deep equality). */
  has(value: V): boolean;
  values(): IterableIterator<V>;
}

/** A read-only mapping of keys to stores; a key without values is not in it. */
export interface Index<K, V> extends Iterable<[K, Store<V>]> {
  readonly size: number;
  get(key: K): Store<V> | undefined;
  has(key: K): boolean;
  keys(): IterableIterator<K>;
  values(): IterableIterator<Store<V>>;
  entries(): IterableIterator<[K, Store<V>]>;
}

/**
 * What `on.index()` returns: the index's name (the handler id), carrying the types of its keys
 * and values to the handlers that read it with `indices.get(handle)`.
 */
export interface IndexHandle<K, V> {
  readonly id: string;
  /** Never set: it only carries the types. */
  readonly types?: { key: K; value: V };
}

/** Every index of an operator, by handler id, as handlers see them (Kopf's `indices`). */
export interface Indices {
  /** The index of a handle that `on.index()` returned, typed by its function's return type. */
  get<K, V>(handle: IndexHandle<K, V>): Index<K, V>;
  /** An index by its id (untyped); throws if the operator has none of that id. */
  get(id: string): Index<IndexKey, unknown>;
  has(id: string): boolean;
  readonly size: number;
  /** The ids of the indices. */
  keys(): IterableIterator<string>;
}

/** Where an object's values are stored: one entry per object (namespace, name, uid in Kopf). */
export type ObjectKey = string;

class ObjectStore<V> implements Store<V> {
  private readonly byObject = new Map<ObjectKey, V>();
  get size(): number { return this.byObject.size; }
  has(value: V): boolean {
    for (const held of this.byObject.values()) if (isDeepStrictEqual(held, value)) return true;
    return false;
  }
  values(): IterableIterator<V> { return this.byObject.values(); }
  [Symbol.iterator](): IterableIterator<V> { return this.byObject.values(); }
  toJSON(): V[] { return [...this.byObject.values()]; }

  put(object: ObjectKey, value: V): void { this.byObject.set(object, value); }
  drop(object: ObjectKey): void { this.byObject.delete(object); }
}

/**
 * The writable index. A reverse map remembers under which keys each object's values are, so that
 * replacing or discarding them touches only those keys, not every key of the index.
 */
export class MutableIndex<K = IndexKey, V = unknown> implements Index<K, V> {
  /** By the key's text (`keyText`): the key as given, and its store. */
  private readonly stores = new Map<string, { key: K; store: ObjectStore<V> }>();
  private readonly reverse = new Map<ObjectKey, Set<string>>();

  get size(): number { return this.stores.size; }
  get(key: K): Store<V> | undefined { return this.stores.get(keyText(key))?.store; }
  has(key: K): boolean { return this.stores.has(keyText(key)); }
  *keys(): IterableIterator<K> { for (const { key } of this.stores.values()) yield key; }
  *values(): IterableIterator<Store<V>> { for (const { store } of this.stores.values()) yield store; }
  *entries(): IterableIterator<[K, Store<V>]> { for (const { key, store } of this.stores.values()) yield [key, store]; }
  [Symbol.iterator](): IterableIterator<[K, Store<V>]> { return this.entries(); }

  /** The object's values are now these (key, value) pairs: others it had before are dropped. */
  replace(object: ObjectKey, entries: Iterable<readonly [K, V]>): void {
    const before = this.reverse.get(object) ?? new Set<string>();
    const after = new Set<string>();
    for (const [key, value] of entries) {
      const text = keyText(key);
      let slot = this.stores.get(text);
      if (!slot) this.stores.set(text, slot = { key, store: new ObjectStore<V>() });
      slot.store.put(object, value);
      after.add(text);
    }
    for (const text of before) if (!after.has(text)) this.dropFrom(text, object);
    if (after.size) this.reverse.set(object, after);
    else this.reverse.delete(object);
  }

  /** Forgets all values of the object. */
  discard(object: ObjectKey): void {
    for (const text of this.reverse.get(object) ?? []) this.dropFrom(text, object);
    this.reverse.delete(object);
  }

  private dropFrom(text: string, object: ObjectKey): void {
    const slot = this.stores.get(text);
    if (!slot) return;
    slot.store.drop(object);
    if (!slot.store.size) this.stores.delete(text); // empty stores are not kept, as in Kopf
  }
}

/** Keys are compared by value: `'1'` and `1` differ, `['a', 'b']` equals another `['a', 'b']`. */
function keyText(key: unknown): string {
  return JSON.stringify(key) ?? 'undefined';
}

/**
 * The (key, value) pairs of what an index function returned, by Kopf's rule: a plain object or a
 * `Map` gives one pair per entry; any other value goes under the key `null`.
 */
export function indexEntries(result: unknown): Iterable<readonly [IndexKey, unknown]> {
  if (result instanceof Map) return result as Map<IndexKey, unknown>;
  if (isPlainObject(result)) return Object.entries(result);
  return [[null, result]];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

type Primitive = string | number | boolean | bigint | symbol;
/** What a result is, per Kopf's rule, with "nothing" (null, undefined) left out. */
type Indexed<R> = Exclude<R, null | undefined | void>;
type Plain<X> = X extends Primitive | readonly unknown[] | Date | RegExp | Function ? false
  : X extends object ? true : false;

/** The key type of an index whose function returns `R`. */
export type IndexKeyOf<R> = Indexed<R> extends infer X
  ? X extends ReadonlyMap<infer K, unknown> ? K : Plain<X> extends true ? keyof X & string : null
  : never;

/** The value type of an index whose function returns `R`. */
export type IndexValueOf<R> = Indexed<R> extends infer X
  ? X extends ReadonlyMap<unknown, infer V> ? V : Plain<X> extends true ? X[keyof X & string] : X
  : never;
