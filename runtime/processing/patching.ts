/**
 * Applying a cycle's patch (Kopf §4.5): a merge-patch of the object and one of its status
 * subresource (when it has one), then JSON-patch operations (finalizers, patch functions) guarded
 * by the resourceVersion. A vanished object is not an error: there is nothing left to patch.
 */
import type { JsonObject, KubeObject } from '../structs/resources.ts';
import { Patch } from '../structs/patches.ts';
import { isConflict, isNotFound, isInvalid } from '../kube/errors.ts';
import { patchObject } from '../kube/objects.ts';
import type { JsonPatchOp } from '../kube/types.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceProcessor } from './processing.ts';

export interface PatchOutcome {
  /** Something was sent (a new watch event will follow). */
  patched: boolean;
  /** The resourceVersion of the object after our last write. */
  resourceVersion?: string;
  /** The object is gone. */
  gone?: boolean;
}

export function newPatch(_body: KubeObject): Patch<KubeObject> {
  return new Patch<KubeObject>();
}

export async function applyPatch(proc: ResourceProcessor, body: KubeObject, patch: Patch<KubeObject>, logger: Logger, extraOps: readonly JsonPatchOp[] = []): Promise<PatchOutcome> {
  const ref = { namespace: body.metadata?.namespace, name: body.metadata?.name ?? '' };
  const outcome: PatchOutcome = { patched: false };
  const send = async (what: string, run: () => Promise<KubeObject>): Promise<boolean> => {
    try {
      const result = await run();
      outcome.patched = true;
      outcome.resourceVersion = result.metadata?.resourceVersion ?? outcome.resourceVersion;
      return true;
    } catch (error) {
      if (isNotFound(error)) {
        logger.debug('Patching was skipped: the object does not exist anymore.');
        outcome.gone = true;
        return false;
      }
      if (what === 'json' && (isInvalid(error) || isConflict(error))) {
        logger.debug(`Could not apply the patch in full due to conflicts with newer changes. Will retry on the next event: ${(error as Error).message}`);
        return false;
      }
      throw error;
    }
  };

  const merge = patch.toMergePatch() as JsonObject;
  const hasStatus = proc.resource.subresources?.includes('status') ?? false;
  const { status, ...main } = merge;
  const objectPart = hasStatus ? main : merge;
  if (Object.keys(objectPart).length) {
    logger.debug(`Merge-patching the resource with: ${JSON.stringify(objectPart)}`);
    if (!(await send('merge', () => patchObject(proc.client, proc.resource, ref, objectPart)))) return outcome;
  }
  if (hasStatus && status !== undefined && !isEmptyObject(status)) {
    logger.debug(`Merge-patching the status with: ${JSON.stringify({ status })}`);
    if (!(await send('merge', () => patchObject(proc.client, proc.resource, ref, { status }, { subresource: 'status' })))) return outcome;
  }
  const ops = [...extraOps];
  if (ops.length) {
    logger.debug(`JSON-patching the resource with: ${JSON.stringify(ops)}`);
    await send('json', () => patchObject(proc.client, proc.resource, ref, ops, { type: 'json' }));
  }
  return outcome;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}
