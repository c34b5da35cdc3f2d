/**
 * What a merge patch set but the object does not show once it is applied (as Kopf checks it). The API
 * server drops, without an error, the fields that a structural schema does not declare (pruning):
 * a handler's result stored into such a status, or a status without a subresource patched through
 * the object, is lost silently. Kopf warns about it ("Merge-patching finished with
 * inconsistencies"), and so does this runtime, with Kopf's items and exceptions; but a field path
 * is checked only until it was seen kept (`KeptFields`).
 *
 * JSON patches are not checked: they are guarded by the resourceVersion and are applied whole or
 * refused.
 */
import { diff, isMapping, type Diff, type FieldPath } from '../structs/diffs.ts';
import type { Fields } from '../structs/patches.ts';

/** Fields that the API server removes altogether when a patch makes them empty: no loss there. */
const EMPTIED_AWAY = new Set(['annotations', 'finalizers', 'labels']);

/**
 * The diff from the patch to the object after it, limited to the patch's fields: `remove` for a
 * field that was set and is absent, `add` for one that was removed and is still there, `change`
 * for one that holds another value.
 */
export function mergeInconsistencies(patch: Fields, body: unknown): Diff {
  // As sent: a field left `undefined` was not sent, and a date went as its text.
  const sent = JSON.parse(JSON.stringify(patch)) as Fields;
  return diff(sent, body, { scope: 'left' })
    .filter(([, path, old, neu]) => truthy(old) || truthy(neu) || !emptiedAway(path));
}

function emptiedAway(path: FieldPath): boolean {
  return path.length === 2 && path[0] === 'metadata' && EMPTIED_AWAY.has(path[1]!);
}

/**
 * Python's truth of a JSON value, as Kopf filters by it: empty containers, `''`, `0`, `false` and
 * nothing are false.
 */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** How many field paths are remembered as kept, and for how long: a schema can change at run time. */
const KEPT_LIMIT = 256;
const KEPT_FOR_MS = 10 * 60_000;

/** A field's path in a patch; the items of a list are all under the number 0. */
export type KeptPath = (string | number)[];
/** The kept paths as a tree of their keys, walked along with a patch: no path's text is made. */
interface Node { leaf?: true; children?: Map<string | number, Node> }

/**
 * The field paths that the API server was seen to keep as patched, for one resource. Pruning is a
 * matter of the schema, i.e. of where a field is, not of its value: once a path was kept, the
 * next patches of it are not asked back whole and checked. So a burst of objects with the same
 * handlers pays for one check, while a path that was dropped is checked and reported every time.
 * The record is forgotten when full and every ten minutes, so that a changed schema is noticed.
 */
export class KeptFields {
  #root: Node = {};
  #size = 0;
  #since = Date.now();

  /**
   * The paths of the patch's values that were not seen kept yet. The values of annotations and
   * labels are never among them: they are strings, which the API server stores as sent or refuses
   * with an error. So the engine's own bookkeeping (progress records, the diff-base) needs only
   * the new resourceVersion back, never the whole object.
   */
  unconfirmed(patch: Fields): KeptPath[] {
    if (Date.now() - this.#since > KEPT_FOR_MS) this.#forget();
    const found: KeptPath[] = [];
    for (const key of Object.keys(patch)) {
      const value = patch[key];
      const node = this.#root.children?.get(key);
      if (key !== 'metadata' || !isMapping(value)) { walk(value, node, [key], found); continue; }
      for (const field of Object.keys(value)) {
        const values = value[field];
        if ((field === 'annotations' || field === 'labels') && stringsOrNulls(values)) continue;
        walk(values, node?.children?.get(field), [key, field], found);
      }
    }
    // The items of a list give their paths once each.
    return found.length > 1 ? [...new Map(found.map((path) => [JSON.stringify(path), path])).values()] : found;
  }

  confirm(paths: readonly KeptPath[]): void {
    if (this.#size + paths.length > KEPT_LIMIT) this.#forget();
    for (const path of paths) {
      let node = this.#root;
      for (const key of path) {
        node.children ??= new Map();
        let child = node.children.get(key);
        if (!child) node.children.set(key, child = {});
        node = child;
      }
      if (!node.leaf) this.#size++;
      node.leaf = true;
    }
  }

  #forget(): void {
    this.#root = {};
    this.#size = 0;
    this.#since = Date.now();
  }
}

/** Adds to `found` each leaf path under `path` (the value's, whose kept node is `node`) not kept before. */
function walk(value: unknown, node: Node | undefined, path: KeptPath, found: KeptPath[]): void {
  if (value === undefined) return;
  let leaf = true;
  if (Array.isArray(value)) {
    const child = node?.children?.get(0);
    path.push(0);
    for (const item of value) { leaf = false; walk(item, child, path, found); }
    path.pop();
  } else if (isMapping(value)) {
    for (const key of Object.keys(value)) {
      leaf = false;
      path.push(key);
      walk(value[key], node?.children?.get(key), path, found);
      path.pop();
    }
  }
  if (leaf && !node?.leaf) found.push([...path]);
}

function stringsOrNulls(values: unknown): boolean {
  if (values === null) return true;
  if (!isMapping(values)) return false;
  for (const key of Object.keys(values)) {
    const value = values[key];
    if (value !== null && value !== undefined && typeof value !== 'string') return false;
  }
  return true;
}
