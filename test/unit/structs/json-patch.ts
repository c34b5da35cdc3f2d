/** A minimal RFC 6902 applier for tests: what the API server makes of the runtime's JSON patches. */
import assert from 'node:assert/strict';
import type { JsonPatchOp } from '../../../runtime/structs/patches.ts';

type Json = { [key: string]: unknown };

/** Applies the ops to a copy of `doc`; a failed `test` or a missing path throws. */
export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOp[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    const keys = op.path.split('/').slice(1).map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (keys.length === 0) { root = structuredClone(op.value); continue; }
    const parent = keys.slice(0, -1).reduce<unknown>((obj, key) => (obj as Json)[key], root) as Json | unknown[];
    const last = keys[keys.length - 1];
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value));
      else if (op.op === 'remove') parent.splice(index, 1);
      else parent[index] = structuredClone(op.value);
    } else if (op.op === 'remove') {
      assert.ok(last in parent, `remove of an absent ${op.path}`);
      delete parent[last];
    } else if (op.op === 'test') {
      assert.deepEqual(parent[last], op.value);
    } else {
      if (op.op === 'replace') assert.ok(last in parent, `replace of an absent ${op.path}`);
      parent[last] = structuredClone(op.value);
    }
  }
  return root;
}
