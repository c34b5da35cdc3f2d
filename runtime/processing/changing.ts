/**
 * The changing cause of one event (create/update/delete/resume): detect it, run one pass of the
 * due handlers, and record their progress, results and — when all are done — the new diff-base.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../structs/resources.ts';
import type { Diff } from '../structs/diffs.ts';
import { Patch, patchContent } from '../structs/patches.ts';
import { diff as diffOf } from '../structs/diffs.ts';
import type { ChangingHandler } from '../registry/handlers.ts';
import type { Reason } from '../registry/contexts.ts';
import { matchesChange } from '../registry/filters.ts';
import { runPass, type PassSummary } from '../handling/running.ts';
import { detectCause, isReason, TITLES, type CauseKind } from './causes.ts';
import type { ObjectMemory } from './memories.ts';
import type { Finalizers } from './finalizers.ts';
import type { ResourceProcessor } from './processor.ts';
import { observerOf, invokeForResult } from '../actions/invocation.ts';
import { reduceDiff, resolveField } from '../structs/diffs.ts';
import type { ChangingContext } from '../registry/changingcontext.ts';
import type { ResourceContext } from '../registry/contexts.ts';
import type { SubhandlerOptions } from '../registry/handlers.ts';
import { subhandlerOf } from '../registry/registry.ts';
import { runChildren, type Attempt, type Children } from '../handling/running.ts';
import { prematches } from '../registry/filters.ts';
import { ObjectState } from './object-state.ts';
import { Timestamp, deliverResult, type Essence } from '../progress/index.ts';
import { ANNOTATIONS_LIMIT, diffBaseOverflow, kib, type Overflow } from '../actions/oversize.ts';
import { reportRefusal } from './refusals.ts';
import type { HandlerStanding, HandlersStanding } from '../conditions/standing.ts';

export interface CycleInput {
  handlers: readonly ChangingHandler[];
  memory: ObjectMemory;
  change: Change;
  /** The event's context with its change: the cause's filters and handlers share it. */
  context: CauseContext;
}

/** The event's context with what changed, as the cause's filters and handlers see it. */
export type CauseContext = ResourceContext<KubeObject> & {
  reason: Reason | undefined;
  diff: Diff;
  old: Essence | undefined;
  new: Essence;
};

/** The event's context (`objectContext`) with its change layered over it. */
export function causeContext(context: ResourceContext<KubeObject>, change: Change): CauseContext {
  const reason = isReason(change.kind) ? change.kind : undefined;
  return { ...context, reason, diff: change.diff, old: change.old, new: change.current };
}

/** What changed since the object was last handled, and what that means. */
export interface Change {
  kind: CauseKind;
  state: ObjectState;
  /** The stored diff-base; `undefined` if never handled. */
  old: Essence | undefined;
  /** The essence now. */
  current: Essence;
  diff: Diff;
}

/** Reads the stored state and detects the cause, before any handler is matched against it. */
export function detectChange(
  proc: ResourceProcessor, body: KubeObject, initial: boolean, finalizers: Finalizers,
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | null,
): Change {
  const state = new ObjectState(proc.settings, body, extraFields(proc.changing));
  const old = state.diffBase();
  const current = state.essence();
  // Never handled: everything is new, as Kopf reports it (one `add` of the whole essence).
  const diff = diffOf(old ?? null, current);
  const kind = detectCause({
    type, deleting: finalizers.deleting, hasFinalizer: finalizers.present,
    hasDiffBase: old !== undefined, changed: diff.length > 0, initial,
  });
  return { kind, state, old, current, diff };
}

export interface CycleResult {
  kind: CauseKind;
  /** The handlers' work: what they patched and returned. */
  patch: Patch<KubeObject>;
  /**
   * The records of it, to be written after it (`writes.ts`): the progress records, then the
   * diff-base.
   */
  records: readonly Patch<KubeObject>[];
  /** The cause's handlers are all finished (or there were none). */
  done: boolean;
  /** Seconds until the earliest delayed handler is due. */
  delay: number | undefined;
  /** Where the cause's handlers stand, for the status that tools read; `undefined`: nothing to say. */
  standing: HandlersStanding | undefined;
}

export async function handleCause(proc: ResourceProcessor, input: CycleInput): Promise<CycleResult> {
  const { memory, context } = input;
  const { body, logger, patch } = context;
  const { kind, state, old, diff } = input.change;
  if (!isReason(kind)) {
    const standing = kind === 'noop' ? { kind: 'unchanged' } as const : undefined;
    return { kind, patch, records: [], done: true, delay: undefined, standing };
  }
  const now = Timestamp.now();
  const superseded = new Patch<KubeObject>({}, { body });
  const progress = new Patch<KubeObject>({}, { body });
  const diffBase = new Patch<KubeObject>({}, { body });
  const reason = kind;
  const title = TITLES[reason];
  const selected = select(input.handlers, reason, memory.initial, context);

  state.supersede(reason, proc.changing, logger, superseded);
  if (!selected.length) {
    state.storeDiffBase(input.change, diffBase);
    memory.initial = false;
    const records = fitting(proc, input, superseded, progress, diffBase);
    return { kind, patch, records, done: true, delay: undefined, standing: handled(reason, []) };
  }
  logger.debug(() => `${title} is in progress: ${JSON.stringify(body)}`);
  // As Kopf: no diff line for a creation (nothing old to compare with), only for a change of something.
  if (diff.length && old !== undefined) logger.debug(() => `${title} diff: ${JSON.stringify(diff)}`);

  const results = new Map<string, unknown>();
  const summary: PassSummary = await runPass(selected, {
    reason, states: state.book, lifecycle: proc.lifecycle, defaultBackoff: proc.settings.execution.defaultBackoff,
    logger, now, results, cancelled: proc.cancelled, observer: observerOf(proc, 'change'),
    invoke: (handler, attempt, children) => invokeChanging(proc, { handler, attempt, children, reason, context }),
  });
  state.writeStates(progress, summary.done ? proc.changing : undefined);
  for (const [id, result] of results) deliverResult(patch, id, { exception: null, result });
  const standing = handled(reason, selected.map((h) => ({ id: h.id, state: state.book.get(h.id)! })));
  if (!summary.done) {
    return { kind, patch, records: [superseded, progress], done: false, delay: summary.delay, standing };
  }
  logger.info(`${title} is processed: ${summary.succeeded} succeeded; ${summary.failed} failed.`);
  state.storeDiffBase(input.change, diffBase);
  memory.initial = false;
  const records = fitting(proc, input, superseded, progress, diffBase, () => {
    const kept = new Patch<KubeObject>({}, { body });
    state.writeStates(kept);
    return kept;
  });
  return { kind, patch, records, done: true, delay: summary.delay, standing };
}

function handled(reason: Reason, handlers: HandlerStanding[]): HandlersStanding {
  return { kind: 'handled', resumed: reason === 'resume', handlers };
}

/**
 * The records of a finished cause: the progress records (purged), then the diff-base. If the
 * diff-base would take the annotations over the API server's limit, it is left out, and so is the
 * purge that must come with it: the progress records stay, saying the handlers are done (`keep`
 * writes them), so that none of them runs again, now or after a restart. It is said once: the
 * same state of the object is not handled again (`refusedBefore` in processing.ts).
 */
function fitting(
  proc: ResourceProcessor, input: CycleInput, superseded: Patch<KubeObject>, progress: Patch<KubeObject>,
  diffBase: Patch<KubeObject>, keep?: () => Patch<KubeObject>,
): Patch<KubeObject>[] {
  const { memory, change } = input;
  const { body, patch, logger } = input.context;
  const stored = patchContent(diffBase);
  // An unchanged diff-base is not written: nothing to measure.
  if (!Object.keys(stored).length) return [superseded, progress, diffBase];
  const contents = [patch, superseded, progress].map((p) => patchContent(p));
  const overflow = diffBaseOverflow(body, contents, stored);
  if (!overflow) return [superseded, progress, diffBase];
  reportRefusal(proc, body, logger, 'TooLarge', unfittingMessage(overflow));
  memory.oversized = change.current;
  return keep ? [superseded, keep()] : [superseded];
}

function unfittingMessage(overflow: Overflow): string {
  const annotation = `${overflow.annotation} would be ${kib(overflow.size)}`;
  return `The diff-base does not fit into the object's annotations: ${annotation}, `
    + `all annotations ${kib(overflow.total)}, over the API server's limit of ${kib(ANNOTATIONS_LIMIT)}. `
    + 'It is not stored; the handlers\' records stay on the object instead, so that none of them runs again, '
    + 'and the object\'s further changes are not handled until the diff-base fits. '
    + 'Keep the diff-base in status (settings.persistence.diffbaseStorage = new StatusDiffBaseStorage()), '
    + 'or leave its large fields out (AnnotationsDiffBaseStorage\'s ignoredFields).';
}

function select(
  handlers: readonly ChangingHandler[], reason: Reason, initial: boolean, ctx: CauseContext,
): ChangingHandler[] {
  const { body, old, new: current } = ctx;
  return handlers.filter((h) => {
    if (!fitsReason(h, reason, initial)) return false;
    const requireChange = h.reasons === null || h.reasons.includes('update');
    return matchesChange(h.filters, body, reason === 'create' ? undefined : old, current, requireChange, ctx);
  });
}

/** Whether the handler serves the cause (its filters aside); `initial`: the object's first cycle since its listing. */
export function fitsReason(h: ChangingHandler, reason: Reason, initial: boolean): boolean {
  return h.reasons === null
    || h.reasons.includes(reason)
    // Resume handlers join the first update/delete cycle of an object seen in the initial listing.
    || (h.initial && initial && (reason === 'update' || (reason === 'delete' && h.deleted)));
}

/** Fields that handlers filter on become part of the essence, even under `status`. */
function extraFields(handlers: readonly ChangingHandler[]): string[][] {
  const fields: string[][] = [];
  for (const h of handlers) {
    if (h.filters.field && !fields.some((f) => isDeepStrictEqual(f, h.filters.field))) fields.push(h.filters.field);
  }
  return fields;
}

export interface ChangingInvocation {
  handler: ChangingHandler;
  attempt: Attempt;
  children: Children;
  reason: Reason;
  context: CauseContext;
}

/** Invokes a changing handler with its change, and with `register`/`execute` for its sub-handlers. */
function invokeChanging(proc: ResourceProcessor, inv: ChangingInvocation): Promise<unknown> {
  const { handler, children, context } = inv;
  const field = handler.filters.field;
  const register = (fn: Function, options: SubhandlerOptions<KubeObject> = {}) => {
    const child = subhandlerOf(handler, fn, options);
    // A sub-handler whose own filters do not match is not registered at all, as in Kopf.
    const seen = { ...ctx, old: context.old, new: context.new, diff: context.diff };
    if (prematches(child.filters, context.body, seen)) children.registered.push(child);
  };
  const ctx: ChangingContext<KubeObject, Record<string, unknown>> = {
    ...context,
    ...inv.attempt,
    param: handler.param,
    reason: inv.reason,
    // Field handlers see their field's values and the diff relative to it, as Kopf does.
    diff: field ? reduceDiff(context.diff, field) : context.diff,
    old: (field ? resolveField(context.old, field) : context.old) as Partial<KubeObject> | undefined,
    new: (field ? resolveField(context.new, field) : context.new) as Partial<KubeObject> | undefined,
    register,
    execute: async (fns) => {
      const entries = Array.isArray(fns) ? fns.map((fn) => [undefined, fn] as const) : Object.entries(fns);
      children.registered.length = 0;
      for (const [id, fn] of entries) register(fn, id === undefined ? {} : { id });
      await runChildren(children);
    },
  };
  return invokeForResult(proc, context.logger, context.body, handler.fn, ctx);
}
