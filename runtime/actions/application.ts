/**
 * Applying a cycle's patch (as Kopf's kopf/_core/actions/application.py): merge patches of the object and of its status
 * subresource (when it has one), the patch's transformation functions as a JSON patch, and
 * finalizer changes as another, each JSON patch guarded by a `test` of the resourceVersion it was
 * computed against. The handlers' work goes before the records that say it is done (`writes.ts`),
 * and finalizer changes last. A vanished object is not an error: there is nothing left to patch.
 */
import type { KubeObject } from '../structs/resources.ts';
import {
  Patch, composeMergePatches, guardedJsonPatch, patchContent, splitStatusOps, toJsonPatch,
  type Fields, type JsonPatchOp,
} from '../structs/patches.ts';
import { isConflict, isInvalid, isNotFound } from '../kube/errors.ts';
import { patchObject, patchObjectVersion } from '../kube/objects.ts';
import { jsonText } from '../structs/diffs.ts';
import { mergeInconsistencies } from './inconsistencies.ts';
import { planWrites } from './writes.ts';
import { describeWrite, isTooLarge, TooLargeError } from './oversize.ts';
import type { Logger } from '../logging/index.ts';
import type { WriteScope } from './scope.ts';

export interface PatchOutcome {
  /** Something was sent (a new watch event will follow). */
  patched: boolean;
  /** The resourceVersion of the object after our last write. */
  resourceVersion?: string;
  /** The object is gone. */
  gone?: boolean;
  /** The extra JSON-patch operations (finalizer changes) were applied. */
  jsonApplied?: boolean;
  /** They were refused: the object changed since the body they were computed from. */
  conflict?: boolean;
}

export function newPatch(body: KubeObject): Patch<KubeObject> {
  return new Patch<KubeObject>({}, { body });
}

/**
 * Sends the patch: `patch` holds the handlers' work, `records` the progress records and the
 * diff-base (in this order), which go after it; `extraOps` (finalizer changes) go last.
 */
export async function applyPatch(
  proc: WriteScope, body: KubeObject, patch: Patch<KubeObject>, logger: Logger,
  extraOps: readonly JsonPatchOp[] = [], records: readonly Patch<KubeObject>[] = [],
): Promise<PatchOutcome> {
  const ref = { namespace: body.metadata?.namespace, name: body.metadata?.name ?? '' };
  const outcome: PatchOutcome = { patched: false };
  // The JSON-patch operations are computed against the freshest object and guarded by its
  // version. Transformations read the whole object, and so does the check of what the merge-patch
  // set (`inconsistencies.ts`): only for them do the merge-patches ask for it back; otherwise each
  // write brings back its new version alone.
  let fresh = body;
  let version = body.metadata?.resourceVersion;
  const send = async (
    kind: 'merge' | 'json', content: Fields | JsonPatchOp[], subresource?: 'status', whole = false,
  ): Promise<boolean> => {
    try {
      if (whole) {
        fresh = await patchObject(proc.client, proc.resource, ref, content as Fields, { subresource });
        version = fresh.metadata?.resourceVersion ?? version;
      } else {
        const options = { type: kind, subresource };
        version = (await patchObjectVersion(proc.client, proc.resource, ref, content, options)) ?? version;
      }
      outcome.patched = true;
      outcome.resourceVersion = version;
      return true;
    } catch (error) {
      if (isNotFound(error)) {
        logger.debug('Patching was skipped: the object does not exist anymore.');
        outcome.gone = true;
        return false;
      }
      // Sent again, it would be refused again: the cycle reports it once (`oversize.ts`).
      if (kind === 'merge' && isTooLarge(error)) {
        throw new TooLargeError(describeWrite(content as Fields, subresource ?? 'object'), error);
      }
      if (kind === 'json' && (isInvalid(error) || isConflict(error))) {
        outcome.conflict = true;
        logger.debug('Could not apply the patch in full due to conflicts with newer changes. ' +
          'Will retry on the next event.');
        return false;
      }
      throw error;
    }
  };
  const sendOps = async (ops: readonly JsonPatchOp[], subresource?: 'status'): Promise<boolean> => {
    if (!ops.length) return true;
    const guarded = guardedJsonPatch(ops, version);
    logger.debug(() => `JSON-patching the ${subresource ?? 'resource'} with: ${JSON.stringify(guarded)}`);
    return send('json', guarded, subresource);
  };

  const contents = [patchContent(patch), ...records.map((r) => patchContent(r))];
  const empty = contents.every((content) => !Object.keys(content).length);
  if (empty && !patch.fns.length && !extraOps.length) return outcome;
  const hasStatus = proc.resource.subresources?.includes('status') ?? false;
  const writes = planWrites(contents[0]!, patch.fns.length > 0, contents.slice(1), hasStatus);
  // A merge patch that cannot be sent fails before the first request: nothing is written, rather
  // than a part (say, the records of a handler's success without its result).
  for (const write of writes.length > 1 ? writes : []) {
    if (write.kind === 'merge') jsonText(write.content, `The patch of the ${write.endpoint} cannot be sent as JSON`);
  }
  // Only while some of the patch's fields were not seen kept before does a merge patch ask for the
  // whole object back: the last one before each look at the object (a check, the transformations).
  const unconfirmed = proc.kept.unconfirmed(contents.reduce(composeMergePatches));
  const checked = unconfirmed.length > 0;
  let sent: Fields = {};
  let consistent = true;
  let finalizing = extraOps;
  for (const [index, write] of writes.entries()) {
    if (write.kind === 'transform') {
      // Transformations, computed against the freshest body we have; with the finalizer change
      // when no record goes in between.
      const transformations = toJsonPatch(new Patch<KubeObject>({}, { body: fresh, fns: patch.fns }), fresh);
      const last = index === writes.length - 1;
      const ops = splitStatusOps(last ? [...transformations, ...finalizing] : transformations, hasStatus);
      if (!(await sendOps(ops.body)) || !(await sendOps(ops.status, 'status'))) return outcome;
      if (last && finalizing.length) outcome.jsonApplied = true;
      if (last) finalizing = [];
      continue;
    }
    const next = writes[index + 1];
    const whole = next?.kind === 'transform' || (checked && !next);
    const subresource = write.endpoint === 'status' ? 'status' : undefined;
    logger.debug(() => `Merge-patching the ${subresource ?? 'resource'} with: ${JSON.stringify(write.content)}`);
    if (!(await send('merge', write.content, subresource, whole))) return outcome;
    sent = composeMergePatches(sent, write.content);
    if (whole && checked) {
      consistent = checkKept(sent, fresh, logger) && consistent;
      sent = {};
    }
  }
  if (checked && consistent) proc.kept.confirm(unconfirmed);
  if (finalizing.length && (await sendOps(finalizing))) outcome.jsonApplied = true;
  return outcome;
}

/** Compares what the merge patches set with the object they brought back; warns of what did not stick. */
function checkKept(sent: Fields, merged: KubeObject, logger: Logger): boolean {
  const inconsistencies = mergeInconsistencies(sent, merged);
  if (inconsistencies.length) {
    logger.warning(`Merge-patching finished with inconsistencies: ${JSON.stringify(inconsistencies)}`);
  }
  return !inconsistencies.length;
}
