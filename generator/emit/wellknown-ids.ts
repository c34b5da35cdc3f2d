/**
 * The shape numbers of the well-known types in a shape table.
 */
import { DocumentContext } from '../model/document-context.ts';
import { normalise } from '../model/schema.ts';
import type { ShapeTable } from './shapes.ts';
import { WELL_KNOWN_SCHEMAS } from './wellknown.ts';

const cache = new WeakMap<ShapeTable, ReadonlyMap<number, string>>();

export function wellKnownIds(table: ShapeTable): ReadonlyMap<number, string> {
  let ids = cache.get(table);
  if (!ids) {
    const map = new Map<number, string>();
    for (const [name, schema] of Object.entries(WELL_KNOWN_SCHEMAS)) {
      const ctx = new DocumentContext('(kopf-gen well-known types)', 0);
      const node = normalise(schema, [], ctx);
      map.set(table.id(node), name);
    }
    ids = map;
    cache.set(table, ids);
  }
  return ids;
}
