/**
 * Applying a cycle's patch (Kopf §4.5): a merge-patch of the object and one of its status
 * subresource (when it has one), then JSON-patch operations (finalizer changes, the patch's
 * transformation functions) guarded by a `test` of the resourceVersion they were computed
 * against. A vanished object is not an error: there is nothing left to patch.
 */
import type { KubeObject } from '../structs/resources.ts';
import {
  Patch, guardedJsonPatch, isEmptyPatch, patchContent, splitMergePatch, splitStatusOps, toJsonPatch, type Fields, type JsonPatchOp,
} from '../structs/patches.ts';
import { isConflict, isInvalid, isNotFound } from '../kube/errors.ts';
import { patchObject, patchObjectVersion } from '../kube/objects.ts';
import { jsonText } from '../structs/diffs.ts';
import { mergeInconsistencies } from './inconsistencies.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceProcessor } from './processing.ts';

export interface PatchOutcome {
  /** Something was sent (a new watch event will follow). */
  patched: boolean;
  /** The resourceVersion of the object after our last write. */
  resourceVersion?: string;
  /** The object is gone. */
  gone?: boolean;
  /** The JSON-patch operations (finalizer changes, transformations) were applied. */
  jsonApplied?: boolean;
  /** They were refused: the object changed since the body they were computed from. */
  conflict?: boolean;
}

export function newPatch(body: KubeObject): Patch<KubeObject> {
  return new Patch<KubeObject>({}, { body });
}

export async function applyPatch(proc: ResourceProcessor, body: KubeObject, patch: Patch<KubeObject>, logger: Logger, extraOps: readonly JsonPatchOp[] = []): Promise<PatchOutcome> {
  const ref = { namespace: body.metadata?.namespace, name: body.metadata?.name ?? '' };
  const outcome: PatchOutcome = { patched: false };
  // The JSON-patch operations are computed against the freshest object and guarded by its
  // version. Transformations read the whole object, and so does the check of what the merge-patch
  // set (`inconsistencies.ts`): only for them do the merge-patches ask for it back; otherwise each
  // write brings back its new version alone.
  let fresh = body;
  let merged: KubeObject | undefined;
  let version = body.metadata?.resourceVersion;
  const send = async (kind: 'merge' | 'json', content: Fields | JsonPatchOp[], subresource?: 'status', whole = false): Promise<boolean> => {
    try {
      if (kind === 'merge' && (whole || patch.fns.length)) {
        fresh = merged = await patchObject(proc.client, proc.resource, ref, content as Fields, { subresource });
        version = fresh.metadata?.resourceVersion ?? version;
      } else {
        version = (await patchObjectVersion(proc.client, proc.resource, ref, content, { type: kind, subresource })) ?? version;
      }
      outcome.patched = true;
      if (kind === 'json') outcome.jsonApplied = true;
      outcome.resourceVersion = version;
      return true;
    } catch (error) {
      if (isNotFound(error)) {
        logger.debug('Patching was skipped: the object does not exist anymore.');
        outcome.gone = true;
        return false;
      }
      if (kind === 'json' && (isInvalid(error) || isConflict(error))) {
        outcome.conflict = true;
        logger.debug('Could not apply the patch in full due to conflicts with newer changes. Will retry on the next event.');
        return false;
      }
      throw error;
    }
  };

  if (isEmptyPatch(patch) && !extraOps.length) return outcome;
  const hasStatus = proc.resource.subresources?.includes('status') ?? false;
  const content = patchContent(patch);
  const merge = splitMergePatch(content, hasStatus);
  // The last merge-patch's answer shows the effect of both; only it needs to be the whole object,
  // and only while some of the patch's fields were not seen kept before.
  const unconfirmed = proc.kept.unconfirmed(content);
  const checked = unconfirmed.length > 0;
  // The status goes second: if it cannot be sent, the object must not get the rest (say, a
  // handler's success without its result). A failure before the first request writes nothing.
  if (merge.body && merge.status) jsonText(merge.status, 'The patch of the status cannot be sent as JSON');
  if (merge.body) {
    logger.debug(() => `Merge-patching the resource with: ${JSON.stringify(merge.body)}`);
    if (!(await send('merge', merge.body, undefined, checked && !merge.status))) return outcome;
  }
  if (merge.status) {
    logger.debug(() => `Merge-patching the status with: ${JSON.stringify(merge.status)}`);
    if (!(await send('merge', merge.status, 'status', checked))) return outcome;
  }
  if (checked && merged) {
    const inconsistencies = mergeInconsistencies(content, merged);
    if (inconsistencies.length) logger.warning(`Merge-patching finished with inconsistencies: ${JSON.stringify(inconsistencies)}`);
    else proc.kept.confirm(unconfirmed);
  }
  // Transformations and finalizer changes, computed against the freshest body we have.
  const transformations = patch.fns.length ? toJsonPatch(new Patch<KubeObject>({}, { body: fresh, fns: patch.fns }), fresh) : [];
  const ops = splitStatusOps([...transformations, ...extraOps], hasStatus);
  if (ops.body.length) {
    const guarded = guardedJsonPatch(ops.body, version);
    logger.debug(() => `JSON-patching the resource with: ${JSON.stringify(guarded)}`);
    if (!(await send('json', guarded))) return outcome;
  }
  if (ops.status.length) {
    const guarded = guardedJsonPatch(ops.status, version);
    logger.debug(() => `JSON-patching the status with: ${JSON.stringify(guarded)}`);
    await send('json', guarded, 'status');
  }
  return outcome;
}
