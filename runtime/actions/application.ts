/**
 * Applying a cycle's plan of writes (as Kopf's kopf/_core/actions/application.py), the one place
 * where a cycle writes to its object: merge patches of the object and of its status subresource
 * (when it has one), the patch's transformation functions as a JSON patch, and finalizer changes
 * as another, each JSON patch guarded by a `test` of the resourceVersion it was computed against.
 * The handlers' work goes before the records that say it is done (`writes.ts`), and finalizer
 * changes last. A vanished object is not an error: there is nothing left to patch.
 */
import type { KubeObject } from '../structs/resources.ts';
import {
  Patch, composeMergePatches, guardedJsonPatch, patchContent, splitStatusOps, toJsonPatch,
  type Fields, type JsonPatchOp,
} from '../structs/patches.ts';
import { isConflict, isInvalid, isNotFound } from '../kube/api-errors.ts';
import { patchObject, patchObjectVersion } from '../kube/objects.ts';
import { jsonText } from '../structs/diffs.ts';
import { mergeInconsistencies } from './inconsistencies.ts';
import { planWrites, type Endpoint, type Write } from './writes.ts';
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

/** What a cycle writes, decided before the first request. */
export interface WritePlan {
  /** The handlers' work: what they patched and returned, and their transformations. */
  readonly work: Patch<KubeObject>;
  /** The records of the work (the progress records, then the diff-base), written after it. */
  readonly records?: readonly Patch<KubeObject>[];
  /** Finalizer changes, written last. */
  readonly finalizer?: readonly JsonPatchOp[];
}

export function newPatch(body: KubeObject): Patch<KubeObject> {
  return new Patch<KubeObject>({}, { body });
}

/** Sends the plan: the work, then its records in the order given, then the finalizer changes. */
export async function applyPlan(
  scope: WriteScope, body: KubeObject, plan: WritePlan, logger: Logger,
): Promise<PatchOutcome> {
  const { work, records = [], finalizer = [] } = plan;
  const contents = [patchContent(work), ...records.map((r) => patchContent(r))];
  const written = contents.filter(hasFields);
  if (!written.length && !work.fns.length && !finalizer.length) return { patched: false };
  const hasStatus = scope.resource.subresources?.includes('status') ?? false;
  const writes = planWrites(contents[0]!, work.fns.length > 0, contents.slice(1), hasStatus);
  // A merge patch that cannot be sent fails before the first request: nothing is written, rather
  // than a part (say, the records of a handler's success without its result). Its text is sent as it is.
  const texts = writes.map((write) => write.kind === 'merge'
    ? jsonText(write.content, `The patch of the ${write.endpoint} cannot be sent as JSON`)
    : undefined);
  // Only while some of the patch's fields were not seen kept before does a merge patch ask for the
  // whole object back: the last one before each look at the object (a check, the transformations).
  const unconfirmed = written.length ? scope.kept.unconfirmed(written.reduce(composeMergePatches)) : [];
  const requests = new Requests(scope, body, logger);
  const sent = await sendWrites(requests, writes, texts, work.fns, finalizer, unconfirmed.length > 0, hasStatus);
  if (sent.consistent && unconfirmed.length) scope.kept.confirm(unconfirmed);
  if (sent.finalizing.length && (await requests.json(sent.finalizing))) requests.outcome.jsonApplied = true;
  return requests.outcome;
}

function hasFields(content: Fields): boolean {
  for (const _ in content) return true;
  return false;
}

/**
 * Sends the writes in their order; stops at the first one refused. The finalizer changes go with
 * the transformations when those come last (no record in between), else after all (`finalizing`).
 */
async function sendWrites(
  requests: Requests, writes: readonly Write[], texts: readonly (string | undefined)[], fns: Patch<KubeObject>['fns'],
  finalizer: readonly JsonPatchOp[], checked: boolean, hasStatus: boolean,
): Promise<{ consistent: boolean; finalizing: readonly JsonPatchOp[] }> {
  let sent: Fields = {};
  let consistent = true;
  for (let index = 0; index < writes.length; index++) {
    const write = writes[index]!;
    const last = index === writes.length - 1;
    if (write.kind === 'transform') {
      // Transformations, computed against the freshest body we have.
      const fresh = requests.fresh;
      const transformations = toJsonPatch(new Patch<KubeObject>({}, { body: fresh, fns }), fresh);
      const ops = splitStatusOps(last ? [...transformations, ...finalizer] : transformations, hasStatus);
      if (!(await requests.json(ops.body)) || !(await requests.json(ops.status, 'status'))) {
        return { consistent: false, finalizing: [] };
      }
      if (last && finalizer.length) requests.outcome.jsonApplied = true;
      if (last) return { consistent, finalizing: [] };
      continue;
    }
    const next = writes[index + 1];
    const whole = next?.kind === 'transform' || (checked && !next);
    const text = texts[index]!; // made for every merge patch before the first request
    if (!(await requests.merge(write.content, text, write.endpoint, whole))) {
      return { consistent: false, finalizing: [] };
    }
    if (!checked) continue; // nothing of what was sent is compared
    sent = composeMergePatches(sent, write.content);
    if (whole) {
      consistent = checkKept(sent, requests.fresh, requests.logger) && consistent;
      sent = {};
    }
  }
  return { consistent, finalizing: finalizer };
}

/**
 * The requests of one plan, each against the object as the previous one left it: the JSON patches
 * are guarded by the latest version. Transformations read the whole object, and so does the check
 * of what the merge patch set (`inconsistencies.ts`): only for them do the merge patches ask for it
 * back (`whole`); otherwise each write brings back its new version alone.
 */
class Requests {
  readonly outcome: PatchOutcome = { patched: false };
  readonly logger: Logger;
  fresh: KubeObject;
  readonly #scope: WriteScope;
  readonly #ref: { namespace: string | undefined; name: string };
  #version: string | undefined;

  constructor(scope: WriteScope, body: KubeObject, logger: Logger) {
    this.#scope = scope;
    this.logger = logger;
    this.fresh = body;
    this.#version = body.metadata?.resourceVersion;
    this.#ref = { namespace: body.metadata?.namespace, name: body.metadata?.name ?? '' };
  }

  /** A merge patch, sent as its JSON text (`text`, encoded once). */
  merge(content: Fields, text: string, endpoint: Endpoint, whole: boolean): Promise<boolean> {
    const subresource = endpoint === 'status' ? 'status' : undefined;
    this.logger.debug(() => `Merge-patching the ${subresource ?? 'resource'} with: ${text}`);
    return this.#send('merge', content, subresource, whole, text);
  }

  json(ops: readonly JsonPatchOp[], subresource?: 'status'): Promise<boolean> {
    if (!ops.length) return Promise.resolve(true);
    const guarded = guardedJsonPatch(ops, this.#version);
    this.logger.debug(() => `JSON-patching the ${subresource ?? 'resource'} with: ${JSON.stringify(guarded)}`);
    return this.#send('json', guarded, subresource, false);
  }

  async #send(
    kind: 'merge' | 'json', content: Fields | JsonPatchOp[], subresource: 'status' | undefined, whole: boolean,
    text?: string,
  ): Promise<boolean> {
    const { client, resource } = this.#scope;
    try {
      if (whole) {
        this.fresh = await patchObject(client, resource, this.#ref, content as Fields, { subresource });
        this.#version = this.fresh.metadata?.resourceVersion ?? this.#version;
      } else {
        const options = { type: kind, subresource };
        const version = await patchObjectVersion(client, resource, this.#ref, text ?? content, options);
        this.#version = version ?? this.#version;
      }
      this.outcome.patched = true;
      this.outcome.resourceVersion = this.#version;
      return true;
    } catch (error) {
      return this.#refused(error, kind, content, subresource);
    }
  }

  /** False for a refusal that ends the plan's writes (a vanished object, a conflict); throws the others. */
  #refused(error: unknown, kind: 'merge' | 'json', content: unknown, subresource: 'status' | undefined): boolean {
    if (isNotFound(error)) {
      this.logger.debug('Patching was skipped: the object does not exist anymore.');
      this.outcome.gone = true;
      return false;
    }
    // Sent again, it would be refused again: the cycle reports it once (`oversize.ts`).
    if (kind === 'merge' && isTooLarge(error)) {
      throw new TooLargeError(describeWrite(content as Fields, subresource ?? 'object'), error);
    }
    if (kind === 'json' && (isInvalid(error) || isConflict(error))) {
      this.outcome.conflict = true;
      this.logger.debug('Could not apply the patch in full due to conflicts with newer changes. ' +
        'Will retry on the next event.');
      return false;
    }
    throw error;
  }
}

/** Compares what the merge patches set with the object they brought back; warns of what did not stick. */
function checkKept(sent: Fields, merged: KubeObject, logger: Logger): boolean {
  const inconsistencies = mergeInconsistencies(sent, merged);
  if (inconsistencies.length) {
    logger.warning(`Merge-patching finished with inconsistencies: ${JSON.stringify(inconsistencies)}`);
  }
  return !inconsistencies.length;
}
