/**
 * Our finalizer on an object: whether it is there, and the JSON-patch operations that add or
 * remove it. Like Kopf 1.44, the patch is guarded by a `test` of the resourceVersion (added when
 * it is applied), so a change we have not seen yet fails the patch (422) instead of being
 * overwritten; the next event retries.
 */
import type { JsonPatchOp } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';

export class Finalizers {
  readonly present: boolean;
  readonly deleting: boolean;
  private readonly list: string[];
  private readonly finalizer: string;
  private readonly body: KubeObject;

  constructor(finalizer: string, body: KubeObject) {
    this.finalizer = finalizer;
    this.body = body;
    this.list = body.metadata?.finalizers ?? [];
    this.present = this.list.includes(finalizer);
    this.deleting = Boolean(body.metadata?.deletionTimestamp);
  }

  addOps(): JsonPatchOp[] {
    const ops: JsonPatchOp[] = [];
    if (this.body.metadata?.finalizers === undefined) {
      ops.push({ op: 'add', path: '/metadata/finalizers', value: [this.finalizer] });
    } else {
      ops.push({ op: 'add', path: '/metadata/finalizers/-', value: this.finalizer });
    }
    return ops;
  }

  removeOps(): JsonPatchOp[] {
    const ops: JsonPatchOp[] = [];
    if (this.list.length === 1 && this.present) {
      ops.push({ op: 'remove', path: '/metadata/finalizers' });
    } else {
      // Remove from the end so that earlier indices stay valid if ours is listed twice.
      for (let i = this.list.length - 1; i >= 0; i--) {
        if (this.list[i] === this.finalizer) ops.push({ op: 'remove', path: `/metadata/finalizers/${i}` });
      }
    }
    return ops;
  }
}
