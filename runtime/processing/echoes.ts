/**
 * The wait for the echo of our own last write (as Kopf's kopf/_core/reactor/queueing.py waits
 * for it): nothing that depends on the object's state is decided on an event that predates a
 * write of ours, so that no write of the cycle (a finalizer's JSON patch, guarded by the version it
 * was computed for) is made against a version that our own last write made stale, and no handler
 * runs again on a state from before its success was written.
 */
import type { KubeObject } from '../structs/resources.ts';
import { getObject, isNotFound } from '../kube/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processor.ts';

/**
 * Whether no write of ours is awaited any more: none was made, or the watch shows it now (our
 * version; or it was seen and replaced by a newer event: this one, unless an event came after it,
 * which goes instead). Mostly it is so, and nothing is awaited.
 */
export function echoed(memory: ObjectMemory, body: KubeObject, pressure: AbortSignal): boolean {
  const expected = memory.expected;
  if (expected && body.metadata?.resourceVersion !== expected.version && !(expected.seen && !pressure.aborted)) {
    return false;
  }
  memory.expected = undefined;
  return true;
}

/**
 * Waits for the echo until the write's deadline; true if the event may be decided on now. A newer
 * event cuts the wait short (false: it is processed instead). If the echo does not come in time (a
 * silent or broken stream), the object is read afresh: the event may predate our last write, which
 * records what is done (a handler's result comes before its record), and handling it would run
 * that handler again. If the object changed, its fresh state is queued instead (false).
 */
export async function echoAwaited(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, pressure: AbortSignal,
): Promise<boolean> {
  const expected = memory.expected!;
  const left = (expected.deadline - Date.now()) / 1000;
  if (left > 0 && !(await sleep(left, pressure, proc.stopping))) return false;
  memory.expected = undefined;
  return !(await requeuedFresh(proc, key, body));
}

/** Reads the object again and queues it if it changed since `body`; true if queued (or gone). */
async function requeuedFresh(proc: ResourceProcessor, key: string, body: KubeObject): Promise<boolean> {
  const ref = { namespace: body.metadata?.namespace, name: body.metadata?.name ?? '' };
  let fresh: KubeObject;
  try {
    fresh = await getObject(proc.client, proc.resource, ref);
  } catch (error) {
    if (isNotFound(error)) return true; // gone: its deletion comes through the watch
    throw error;
  }
  if (fresh.metadata?.resourceVersion === body.metadata?.resourceVersion) return false;
  proc.enqueue(key, { kind: 'event', type: 'MODIFIED', object: fresh });
  return true;
}
