/**
 * The status that tools read (kstatus: Flux, `kubectl wait`, Argo CD), from how a cycle left the
 * object's handlers: `status.observedGeneration` and the conditions `Reconciling`, `Stalled` and
 * `Ready` (docs/status.md). A pure function of the cycle's outcome and the object: the processing
 * folds what it returns into the cycle's own writes, and nothing when the object says it already.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Fields } from '../structs/patches.ts';
import { jsonEqual } from '../structs/diffs.ts';
import { isFinished, type HandlerState } from '../progress/index.ts';
import { currentConditions, generationOf, withCondition, type Condition, type ConditionInput } from './conditions.ts';

/** One of Kopf's handlers of the cycle, as its pass left it. */
export interface HandlerStanding {
  readonly id: string;
  readonly state: HandlerState;
}

/**
 * Kopf's handlers in this cycle: `handled` when the cause's handlers were run (or none was due),
 * `unchanged` when the object is as it was last handled, and only the object can say how that
 * ended. A resume keeps an earlier failure of the same generation: the failed handler is not run again.
 */
export type HandlersStanding =
  | { readonly kind: 'handled'; readonly resumed: boolean; readonly handlers: readonly HandlerStanding[] }
  | { readonly kind: 'unchanged' };

/** The reconciler's last run on the object. */
export type ReconcilerStanding = { readonly id: string } & (
  | { readonly kind: 'done' }
  | { readonly kind: 'requeued'; readonly delay: number }
  | { readonly kind: 'retrying'; readonly retry: number; readonly delay: number; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }
);

export interface CycleStanding {
  readonly handlers: HandlersStanding;
  readonly reconciler?: ReconcilerStanding;
}

/** The reasons the runtime sets (the checks and docs/status.md name them). */
export const REASONS = {
  pending: 'HandlerPending',
  retrying: 'HandlerRetrying',
  failed: 'HandlerFailed',
  reconcilerRetrying: 'ReconcilerRetrying',
  requeued: 'RequeueDue',
  reconcilerFailed: 'ReconcilerFailed',
  done: 'Reconciled',
  noFailure: 'NoFailure',
  succeeded: 'Succeeded',
} as const;

/**
 * The status fragment (`{ status: { observedGeneration?, conditions } }`) that tells tools where
 * the object stands; `undefined` when the object (with `work`'s conditions, if a handler set
 * some) says it already. `observedGeneration` moves only when the handling of the generation is
 * complete: succeeded, or failed for good.
 */
export function statusConditions(
  body: KubeObject, standing: CycleStanding, work: readonly Condition[] | undefined, now: Date,
): Fields | undefined {
  const generation = generationOf(body);
  const stored = currentConditions(body);
  const before = work ?? stored;
  const { progressing, failures } = verdicts(stored, standing, generation);
  const stalled = failures.length > 0;
  const set: ConditionInput[] = [
    progressing ? { type: 'Reconciling', status: 'True', ...progressing }
      : { type: 'Reconciling', status: 'False', reason: REASONS.done, message: completion(generation) },
    stalled ? { type: 'Stalled', status: 'True', ...failures[0]!, message: joined(failures) }
      : { type: 'Stalled', status: 'False', reason: REASONS.noFailure, message: '' },
    progressing ? { type: 'Ready', status: 'False', ...progressing }
      : stalled ? { type: 'Ready', status: 'False', ...failures[0]!, message: joined(failures) }
        : { type: 'Ready', status: 'True', reason: REASONS.succeeded, message: completion(generation) },
  ];
  const conditions = set.reduce((list, input) => withCondition(list, input, generation, now), before);
  const observed = !progressing && generation !== undefined ? generation : undefined;
  const storedObserved = (body.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  const fresh = observed !== undefined && observed !== storedObserved;
  if (!work && !fresh && jsonEqual(conditions, stored)) return undefined;
  return { status: { ...(fresh ? { observedGeneration: observed } : {}), conditions } };
}

interface Verdicts {
  /** Why work of this generation is still to come, if it is. */
  progressing: { reason: string; message: string } | undefined;
  /** What failed for good, each with its reason and message. */
  failures: { reason: string; message: string }[];
}

function verdicts(
  stored: readonly Condition[], standing: CycleStanding, generation: number | undefined,
): Verdicts {
  const failures: Verdicts['failures'] = [];
  let progressing: Verdicts['progressing'];
  const { handlers, reconciler } = standing;
  if (handlers.kind === 'handled') {
    for (const { id, state } of handlers.handlers) {
      if (state.failure) failures.push({ reason: REASONS.failed, message: failedMessage(id, state) });
      else if (!isFinished(state)) progressing ??= pendingVerdict(id, state);
    }
  }
  if (handlers.kind === 'unchanged' || (handlers.kind === 'handled' && handlers.resumed)) {
    const earlier = stored.find((c) => c.type === 'Stalled' && c.status === 'True' && c.reason === REASONS.failed);
    const current = generation !== undefined && earlier?.observedGeneration === generation;
    if (earlier && current && !failures.length) failures.push({ reason: REASONS.failed, message: earlier.message });
  }
  if (reconciler?.kind === 'failed') {
    failures.push({ reason: REASONS.reconcilerFailed, message: `Reconciler '${reconciler.id}' failed permanently: `
      + reconciler.message });
  } else if (reconciler?.kind === 'retrying') {
    progressing ??= { reason: REASONS.reconcilerRetrying, message: `Reconciler '${reconciler.id}' failed `
      + `(retry ${reconciler.retry}), retrying in ${reconciler.delay} seconds: ${reconciler.message}` };
  } else if (reconciler?.kind === 'requeued') {
    progressing ??= { reason: REASONS.requeued,
      message: `Reconciler '${reconciler.id}' runs again in ${reconciler.delay} seconds, as it asked.` };
  }
  return { progressing, failures };
}

/** A handler not finished: not yet run, or waiting for its retry after a failure. */
function pendingVerdict(id: string, state: HandlerState): { reason: string; message: string } {
  if (!state.retries) return { reason: REASONS.pending, message: `Handler '${id}' is pending.` };
  const when = state.delayed ? `, retrying at ${state.delayed.toIso()}` : '';
  const why = state.message ? `: ${state.message}` : '';
  return { reason: REASONS.retrying, message: `Handler '${id}' failed (retry ${state.retries})${when}${why}` };
}

function failedMessage(id: string, state: HandlerState): string {
  return `Handler '${id}' failed permanently: ${state.message ?? 'no message'}`;
}

function joined(failures: readonly { message: string }[]): string {
  return failures.map((f) => f.message).join('; ');
}

function completion(generation: number | undefined): string {
  return generation === undefined ? 'Handling is complete.' : `Generation ${generation} is handled.`;
}
