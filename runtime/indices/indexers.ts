/**
 * An operator's indexes, one per index handler, created up front from its registry (an id
 * without a handler has no index: asking for it is an error, as Kopf's KeyError is).
 * The indexers write; handlers get the read-only view, `indices`.
 */
import {
  indexEntries, MutableIndex, type Index, type IndexHandle, type IndexKey, type Indices, type ObjectKey,
} from './indices.ts';

export class OperatorIndexers {
  private readonly byId = new Map<string, MutableIndex>();
  readonly indices: Indices;

  constructor(ids: Iterable<string>) {
    for (const id of ids) this.byId.set(id, new MutableIndex());
    this.indices = new IndicesView(this.byId);
  }

  /** Whether the operator has any index at all (else nothing waits for indexing). */
  get empty(): boolean { return this.byId.size === 0; }

  /** Stores what the index function returned for the object, replacing what it gave before. */
  replace(id: string, object: ObjectKey, result: unknown): void {
    this.index(id).replace(object, indexEntries(result));
  }

  /** Forgets the object's values in one index. */
  discard(id: string, object: ObjectKey): void {
    this.index(id).discard(object);
  }

  /** Forgets the object's values in every index. */
  discardAll(object: ObjectKey): void {
    for (const index of this.byId.values()) index.discard(object);
  }

  private index(id: string): MutableIndex {
    const index = this.byId.get(id);
    if (!index) throw new Error(`There is no index '${id}'.`);
    return index;
  }
}

class IndicesView implements Indices {
  private readonly byId: ReadonlyMap<string, Index<IndexKey, unknown>>;
  constructor(byId: ReadonlyMap<string, Index<IndexKey, unknown>>) { this.byId = byId; }

  get<K, V>(handle: IndexHandle<K, V>): Index<K, V>;
  get(id: string): Index<IndexKey, unknown>;
  get(which: string | IndexHandle<unknown, unknown>): Index<unknown, unknown> {
    const id = typeof which === 'string' ? which : which.id;
    const index = this.byId.get(id);
    if (!index) {
      throw new Error(`There is no index '${id}' in this operator: ` +
        'register it with on.index() in the operator\'s registry.');
    }
    return index;
  }

  has(id: string): boolean { return this.byId.has(id); }
  get size(): number { return this.byId.size; }
  keys(): IterableIterator<string> { return this.byId.keys(); }
}
