/**
 * What one event of an object leads to, decided before anything is written (as Kopf's
 * kopf/_core/reactor/processing.py decides), once the echo of our own last write is seen: the
 * reconciler's run, then the finalizer's addition or removal, or one pass of the cause's
 * handlers, and the plan of the writes that follow from all of it. The plan is applied in one
 * place (`applyPlan`, by `processing.ts`): one write per cycle, however many take part in it.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Logger } from '../logging/index.ts';
import type { FilterContext, ResourceContext } from '../registry/contexts.ts';
import type { ChangingHandler } from '../registry/handlers.ts';
import { prematches, seesChange } from '../registry/filters.ts';
import { jsonEqual } from '../structs/diffs.ts';
import type { Essence } from '../progress/index.ts';
import type { WritePlan } from '../actions/application.ts';
import type { ObjectReconciling, SpawningVerdict } from '../actions/engines.ts';
import type { RawEvent } from '../actions/scope.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processor.ts';
import { causeContext, detectChange, fitsReason, handleCause, type Change, type CycleResult } from './changing.ts';
import { Finalizers } from './finalizers.ts';

/** One event to decide on, with its context (its patch holds the event handlers' results). */
export interface EventInput {
  key: string;
  event: RawEvent;
  memory: ObjectMemory;
  logger: Logger;
  /** Aborted when a newer event of the object waits: it cuts the wait for our own write short. */
  pressure: AbortSignal;
  context: ResourceContext<KubeObject>;
}

/** What the event leads to: the writes, and what to remember of them once they are made. */
export interface Decision {
  plan: WritePlan;
  /** The next state-dependent handling waits until the watch shows these writes (`consistent`). */
  awaited: boolean;
  /** The finalizer's removal lets the deleted object go: its later events are stale. */
  releasing: boolean;
  /** No changing handler is interested in the object: none of them has anything pending on it. */
  idle?: boolean;
  /** The cause's cycle, and the essence it handled, when the cause's handlers were considered. */
  cycle?: CycleResult;
  essence?: Essence;
}

/**
 * Decides on one event (a plan that may write nothing), once our own last write is seen
 * (`echoes.ts`, awaited by the processing before): the reconciler's run, then Kopf's side. Nothing
 * here sleeps, reads the object or requeues it: what it awaits are the handlers' runs.
 */
export function decide(proc: ResourceProcessor, input: EventInput): Promise<Decision> {
  const { context, pressure } = input;
  if (inert(proc, input.memory)) return Promise.resolve(workOnly(context.patch));
  // Without a reconciler, Kopf's side is decided at once (an await is a turn of the loop).
  if (!proc.reconciling) return decideHandlers(proc, input);
  // If a newer event waits, the cycle ends before the reconciler (the newer one is reconciled instead).
  if (pressure.aborted) return Promise.resolve(workOnly(context.patch));
  return reconcileThenDecide(proc, proc.reconciling, input);
}

/**
 * How a listed object needs nothing: no changing handler (`unhandled`), none of them applies to
 * it (`stealth`), or their cause, a resume, has no handler to run and nothing to write (`resumed`).
 */
export type Settled = 'unhandled' | 'stealth' | 'resumed';

/**
 * Never read: the filters given it do not see the change (`seesChange`), so that they look at the
 * body's labels and annotations alone.
 */
const UNREAD = Object.freeze({}) as FilterContext<KubeObject>;

/**
 * Whether an object seen for the first time in a listing needs nothing of its processing: its
 * stored state says all is done (our finalizer where it is needed, the diff-base of its essence
 * now, no progress records, no deletion), and nothing else acts on it. This is what `decide`
 * decides for it, by the same steps, without a cycle: the pipeline does not queue such an object,
 * so that a restart with nothing changed costs no cycle per object. Whatever else may act on it
 * (event handlers, index functions, timers and daemons, a reconciler, resume handlers, filters
 * that see the change, a memory of it from an earlier event) makes it go the whole way, as does a
 * stored state that cannot be read (the whole way reports it).
 */
export function settledOnSight(proc: ResourceProcessor, key: string, event: RawEvent): Settled | undefined {
  if (event.kind !== 'event' || event.type !== null || proc.memories.has(key)) return undefined;
  if (proc.watching.length || proc.indexing || proc.spawner || proc.reconciling) return undefined;
  const { changing } = proc;
  if (!changing.length) return 'unhandled'; // `decide`: the event handlers' work alone, and there are none
  if (changing.some((h) => seesChange(h.filters) || fitsReason(h, 'resume', true))) return undefined;
  const body = event.object;
  const finalizers = new Finalizers(proc.settings.persistence.finalizer, body);
  const interested = changing.filter((h) => prematches(h.filters, body, UNREAD));
  const step = finalizerStep(interested, undefined, finalizers);
  if (step !== undefined && step !== 'stealth') return undefined;
  try {
    const change = detectChange(proc, body, true, finalizers, event.type);
    // A stealth object is not handled now, but its records would be superseded once it is.
    if (change.state.recorded(changing)) return undefined;
    if (step === 'stealth') return 'stealth';
    return change.kind === 'resume' ? 'resumed' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether nothing of the object's state is decided on this event: the resource has no changing
 * handlers, timers, daemons or reconciler; or we let the object go at its deletion, and this
 * event predates that. Then only the event handlers' work is written, and no write is awaited.
 */
export function inert(proc: ResourceProcessor, memory: ObjectMemory): boolean {
  return (!proc.changing.length && !proc.spawner && !proc.reconciling) || Boolean(memory.released);
}

/**
 * The reconciler, before Kopf's handlers, so that a deletion's handlers and the finalizer's
 * removal come after its last run; its patch is the cycle's work, written in the same plan.
 */
async function reconcileThenDecide(
  proc: ResourceProcessor, reconciling: ObjectReconciling, input: EventInput,
): Promise<Decision> {
  const { key, event, logger, context } = input;
  const reconciled = await reconciling.reconcile({ key, body: event.object, context, logger, trigger: event.trigger });
  const decision = await decideHandlers(proc, input);
  // What the reconciler wrote is awaited as the handlers' writes are: the next run must see it.
  return reconciled && !decision.awaited ? { ...decision, awaited: true } : decision;
}

/** The decision of Kopf's side: the finalizer, the cause and one pass of its handlers. */
async function decideHandlers(proc: ResourceProcessor, input: EventInput): Promise<Decision> {
  const { key, event, memory, logger, context } = input;
  const { changing } = proc;
  const body = event.object;
  const work = context.patch;
  const finalizers = new Finalizers(proc.settings.persistence.finalizer, body);
  // Filters see the change as the handlers would (reason, diff, old, new), as in Kopf. Reading it
  // (the essence, the diff-base, their diff) is put off until it is needed when no filter looks at
  // it: an event may end in the finalizer's addition, without it.
  let change: Change | undefined;
  const changeNow = (): Change => change ??= detectChange(proc, body, memory.initial, finalizers, event.type);
  const filtering = changing.some((h) => seesChange(h.filters)) ? causeContext(context, changeNow()) : undefined;
  const ctx = filtering ?? context;
  const interested = changing.filter((h) => prematches(h.filters, body, ctx));
  // Timers and daemons are spawned, matched and stopped on every event, before the finalizer is
  // added (as in Kopf), and hold the finalizer while the object is deleted until they have exited.
  const spawned = proc.spawner?.handle({
    key, body, memo: memory.memo, deleting: finalizers.deleting, ctx, changed: () => changeNow().diff.length > 0,
  });
  // A reconciler holds the finalizer as timers and daemons do: until it has run for the deletion.
  const spawning = combined(spawned, proc.reconciling?.verdict(key, body, ctx));
  const early = finalizing(interested, spawning, finalizers, work, logger);
  if (early) return early;

  const current = changeNow();
  if (refusedBefore(memory, current, logger)) return workOnly(work);

  const cycleContext = filtering ?? causeContext(context, current);
  const cycle = await handleCause(proc, { handlers: interested, memory, change: current, context: cycleContext });
  if (cycle.kind === 'noop') {
    logger.debug('Something has changed, but we are not interested (the essence is the same).');
  }
  if (cycle.kind === 'free') logger.debug('Deletion, but we are done with it, and we do not care.');
  let finalizer = undefined;
  if (finalizers.deleting && finalizers.present && cycle.done) {
    logger.debug('Removing the finalizer, thus allowing the actual deletion.');
    finalizer = finalizers.removeOps();
  }
  const plan = { work: cycle.patch, records: cycle.records, finalizer };
  return { plan, awaited: true, releasing: Boolean(finalizer), cycle, essence: current.current };
}

/**
 * What the finalizer needs before the cause's handlers: nothing of ours applies or it is not
 * needed (`stealth`: removed if present, unless tasks hold it), added (the handlers run on the
 * event it causes), kept while only timers, daemons or a reconciler apply (`tasks`: removed once
 * the deleted object's tasks are done), held back while they hold it (`held`); `undefined` if
 * the cause's handlers are due.
 */
type FinalizerStep = 'stealth' | 'unneeded' | 'add' | 'tasks' | 'release' | 'held' | undefined;

function finalizerStep(
  interested: readonly ChangingHandler[], spawning: SpawningVerdict | undefined, finalizers: Finalizers,
): FinalizerStep {
  const required = interested.some((h) => h.requiresFinalizer) || Boolean(spawning?.required);
  if ((!interested.length && !spawning?.required) || (!required && finalizers.present)) {
    // Stealth (nothing of ours applies), or our finalizer is no longer needed: let go of it.
    return !finalizers.present || spawning?.holding ? 'stealth' : 'unneeded';
  }
  if (required && !finalizers.present && !finalizers.deleting) return 'add';
  if (!interested.length) {
    // Only timers, daemons or a reconciler: the finalizer goes once the deleted object's tasks
    // have exited and the reconciler has run for the deletion.
    return !finalizers.deleting || !finalizers.present || spawning?.holding ? 'tasks' : 'release';
  }
  // The deletion's handlers wait until the timers and daemons have exited (which re-queues the
  // object) and the reconciler has run for the deletion (its retries re-queue it): their cycle
  // ends in the finalizer's removal, which must not come before that.
  return finalizers.deleting && spawning?.holding ? 'held' : undefined;
}

/**
 * The decisions that come before the cause's handlers (`finalizerStep`): the finalizer added or
 * removed, or the handlers held back; `undefined` if the handlers are due.
 */
function finalizing(
  interested: readonly ChangingHandler[], spawning: SpawningVerdict | undefined, finalizers: Finalizers,
  work: WritePlan['work'], logger: Logger,
): Decision | undefined {
  switch (finalizerStep(interested, spawning, finalizers)) {
    case 'stealth': return { ...workOnly(work), idle: !interested.length };
    case 'unneeded':
      logger.debug('Removing the finalizer, as there are no handlers requiring it.');
      return { plan: { work, finalizer: finalizers.removeOps() }, awaited: true, releasing: false };
    case 'add':
      logger.debug('Adding the finalizer, thus preventing the actual deletion.');
      // Only timers, daemons or a reconciler need it: no handler is pending, which the status says at once.
      return {
        plan: { work, finalizer: finalizers.addOps() }, awaited: true, releasing: false, idle: !interested.length,
      };
    case 'tasks': return { ...workOnly(work), idle: true };
    case 'release':
      logger.debug('Removing the finalizer, thus allowing the actual deletion.');
      return { plan: { work, finalizer: finalizers.removeOps() }, awaited: true, releasing: true };
    case 'held': return workOnly(work);
    case undefined: return undefined;
  }
}

/** What the timers, daemons and the reconciler need of the finalizer, together. */
function combined(a: SpawningVerdict | undefined, b: SpawningVerdict | undefined): SpawningVerdict | undefined {
  if (!a || !b) return a ?? b;
  return { required: a.required || b.required, holding: a.holding || b.holding };
}

/** The event handlers' results alone, if any: nothing waits for their echo. */
export function workOnly(work: WritePlan['work']): Decision {
  return { plan: { work }, awaited: false, releasing: false };
}

/**
 * Whether a write of this state of the object was refused for its size: its handlers do not run
 * again (they did, and only their records are missing) until the object changes. A deletion goes
 * on: its records are small, and the finalizer must be released.
 */
function refusedBefore(memory: ObjectMemory, change: Change, logger: Logger): boolean {
  if (memory.oversized === undefined) return false;
  if (change.kind === 'delete' || !jsonEqual(memory.oversized, change.current)) {
    memory.oversized = undefined;
    return false;
  }
  logger.debug('Not handled again: the records of this state of the object were too large to be written.');
  return true;
}
