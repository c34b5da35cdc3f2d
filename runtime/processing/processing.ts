/**
 * The per-event logic (as Kopf's kopf/_core/reactor/processing.py): what one watch event of one
 * object leads to.
 *
 *   indexes → event handlers → our own last write seen (`echoes.ts`) → decision (stealth check →
 *   the reconciler → finalizer → cause → one pass of handlers → finalizer removal) → the plan's
 *   writes → delayed re-processing.
 *
 * The context of the event is built once, and its patch is the cycle's work: the event handlers,
 * the reconciler and the changing handlers all write into it. The writes are decided first
 * (`deciding.ts`) and made in one place (`applyPlan`). One cycle writes a few requests, the handlers' work before the
 * records of it (`writes.ts`), and every handler's progress is on the object before the next
 * handler starts, so a crash or a restart (of this runtime or of Kopf) resumes where the records
 * say, at worst running again a handler whose work was written but not its record.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Logger } from '../logging/index.ts';
import type { ResourceContext } from '../registry/contexts.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processor.ts';
import { runEventHandlers } from './event-handlers.ts';
import type { CycleResult } from './changing.ts';
import type { CauseKind } from './causes.ts';
import { ATTRIBUTES, describeObject, startCycleSpan, within } from '../observation/tracing.ts';
import { decide, inert, settledOnSight, workOnly, type Decision, type EventInput } from './deciding.ts';
import { echoAwaited, echoed } from './echoes.ts';
import { TooLargeError } from '../actions/oversize.ts';
import { reportRefusal } from './refusals.ts';
import { foldConditions } from './status-conditions.ts';
import { applyPlan, newPatch, type PatchOutcome } from '../actions/application.ts';
import { objectContext } from '../actions/invocation.ts';
import { thrownText } from '../structs/errors.ts';
import { UnreadableStateError } from '../progress/index.ts';
import type { RawEvent } from '../actions/scope.ts';
import type { EventIndexing } from '../actions/engines.ts';
import { currentClock } from '../structs/clock.ts';
import { DEBUG } from '../logging/levels.ts';
import { ErrorDelays } from '../queueing/error-delays.ts';

const CYCLE_FINISHED = 'Handling cycle is finished, waiting for new changes.';

/** What a request of a kind takes part in: the processing's one switch on the kind. */
interface Traits {
  /** Index functions run on it (a watch event not indexed yet). */
  readonly indexes: boolean;
  /** Event handlers see it, and it cuts a scheduled wake-up short (it is or may be a newer state). */
  readonly watched: boolean;
  /** It is the wake-up that ends a throttling delay. */
  readonly wakeup: boolean;
}

const WATCHED: Traits = { indexes: true, watched: true, wakeup: false };
const WAKEUP: Traits = { indexes: true, watched: true, wakeup: true };
const INDEXED: Traits = { indexes: false, watched: true, wakeup: false };
/** No state of its own: event handlers and index functions saw its body already. */
const RECONCILE: Traits = { indexes: false, watched: false, wakeup: false };

function traitsOf(kind: RawEvent['kind']): Traits {
  switch (kind) {
    case 'event': case 'retry': case 'release': return WATCHED;
    case 'wakeup': return WAKEUP;
    case 'indexed': return INDEXED;
    case 'reconcile': return RECONCILE;
  }
}

/** Processes one request of the object's queue; never throws — unexpected errors throttle the object instead. */
export async function processEvent(
  proc: ResourceProcessor, key: string, event: RawEvent, pressure: AbortSignal,
): Promise<void> {
  const memory = proc.memories.recall(key, event.type === null);
  const logger = proc.logger.forObject(event.object);
  const traits = traitsOf(event.kind);
  // A reconcile request brings no newer state: a wake-up of delayed handlers stays as it is.
  if (memory.wakeup && traits.watched) {
    memory.wakeup.cancel();
    memory.wakeup = undefined;
    // As Kopf's sleep in the worker is cut short by the next event: it is processed at once.
    if (memory.sleepingUntil !== undefined) {
      logger.debug(`Sleeping was interrupted by new changes, ${secondsLeft(memory.sleepingUntil)} seconds left.`);
    }
  }
  if (traits.watched) memory.sleepingUntil = undefined;

  // The wake-up is the throttle's own timer (scheduling one clears any other): it ends the delay
  // even if it fires a millisecond before the wall clock says so, as Node's timers may.
  const now = currentClock().now();
  if (memory.throttle && !traits.wakeup && now < memory.throttle.until) {
    schedule(proc, key, memory, event.object, (memory.throttle.until - now) / 1000);
    return;
  }
  if (memory.throttle && traits.wakeup) logger.info('Throttling is over. Switching back to normal operations.');
  try {
    await traced(proc, event, () => processObject(proc, key, event, traits, memory, logger, pressure));
    memory.throttle = undefined;
  } catch (error) {
    // A cycle that outlived the operator's stop (its handler ran past the exit timeout) ends
    // here: its writes are refused by the closed client, and nothing is retried any more.
    if (proc.stopping.aborted) logger.debug(`The cycle ended after the operator stopped: ${thrownText(error)}`);
    // Retrying cannot mend what someone else wrote into our annotations, nor make a write smaller:
    // the object waits for its next change.
    else if (error instanceof UnreadableStateError) {
      reportRefusal(proc, event.object, logger, 'UnreadableState', error.message);
    }
    else if (error instanceof TooLargeError) reportRefusal(proc, event.object, logger, 'TooLarge', error.message);
    else throttle(proc, key, memory, event.object, logger, error);
  }
}

/**
 * Whether a listed object needs no cycle (`settledOnSight`): then it is not queued. Its verbose
 * log says what the cycle of its resume would have said.
 */
export function settledListing(proc: ResourceProcessor, key: string, event: RawEvent): boolean {
  const settled = settledOnSight(proc, key, event);
  const logger = proc.logger;
  if (settled === 'resumed' && logger.isEnabledFor(DEBUG)) logger.forObject(event.object).debug(CYCLE_FINISHED);
  return settled !== undefined;
}

/** The cycle in a span of its own, with the object's identity and the cause it was handled for. */
function traced(
  proc: ResourceProcessor, event: RawEvent, cycle: () => Promise<CauseKind | undefined>,
): Promise<unknown> {
  const span = startCycleSpan();
  // No tracing SDK: no span to describe, and no frame around the cycle.
  if (!span.isRecording()) return cycle();
  const meta = event.object.metadata;
  describeObject(span, { kind: event.object.kind, name: meta?.name, namespace: meta?.namespace, uid: meta?.uid },
    proc.resource);
  span.setAttribute(ATTRIBUTES.event, event.kind === 'wakeup' ? 'WAKEUP' : event.type ?? 'LISTED');
  return within(span, async () => {
    const cause = await cycle();
    if (cause) span.setAttribute(ATTRIBUTES.cause, cause);
  });
}

/** Processes one event; returns the cause it was handled for, if its handlers were considered. */
async function processObject(
  proc: ResourceProcessor, key: string, event: RawEvent, traits: Traits, memory: ObjectMemory, logger: Logger,
  pressure: AbortSignal,
): Promise<CauseKind | undefined> {
  const body = event.object;
  // The event's context, built once: its index functions, event handlers, filters and changing
  // handlers share it, each with its own parts (a logger, the retry) layered over it.
  const context = objectContext(body, memory, logger, newPatch(body), proc);
  // Each step that an operator may not use is not even awaited then: an await is a turn of the loop.
  if (proc.indexing && !(await indexed(proc, proc.indexing, { key, event, traits, memory, context }))) return undefined;
  if (proc.watching.length && traits.watched) await runEventHandlers(proc, proc.watching, event, logger, context);

  if (event.type === 'DELETED') {
    if (proc.changing.length) logger.debug('Deleted, really deleted, and we are notified.');
    proc.memories.forget(key); // and the timers, daemons and reconciler's requests with it
    return undefined;
  }
  // Our own last write seen, the reconciler's run, the finalizer and Kopf's handlers decide one
  // plan, written once.
  const decision = await decideOnEvent(proc, { key, event, memory, logger, pressure, context });
  if (proc.settings.status.conditions) foldConditions(proc, key, body, decision);
  await carryOut(proc, key, memory, body, logger, decision);
  return decision.cycle?.kind;
}

/** Decides once our own last write is seen; the event handlers' work alone if a newer state goes instead. */
async function decideOnEvent(proc: ResourceProcessor, input: EventInput): Promise<Decision> {
  const { key, event, memory, pressure, context } = input;
  const seen = inert(proc, memory) || echoed(memory, event.object, pressure)
    || await echoAwaited(proc, key, memory, event.object, pressure);
  return seen ? decide(proc, input) : workOnly(context.patch);
}

/** Writes what was decided, once, and remembers what follows from the writes. */
async function carryOut(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, logger: Logger, decision: Decision,
): Promise<void> {
  // A transformation refused by a conflict stops the writes before the records of the work: the
  // handlers run again on the next event, and their transformations with them.
  let outcome: PatchOutcome;
  try {
    outcome = await applyPlan(proc, body, decision.plan, logger);
  } catch (error) {
    if (!(error instanceof TooLargeError) || !decision.cycle) throw error;
    // The work may be written and its records not: its handlers must not run again on its echo.
    memory.oversized = decision.essence;
    reportRefusal(proc, body, logger, 'TooLarge', `${error.message}. The handlers are not run again until the object `
      + 'changes; make what they write smaller (for the diff-base: keep it in status, or leave its large fields out).');
    return;
  }
  if (decision.releasing && outcome.jsonApplied) memory.released = true;
  if (decision.awaited) remember(proc, key, memory, body, outcome);
  if (decision.cycle) afterCycle(proc, key, memory, body, logger, decision.cycle, outcome);
}

/** The end of a cycle of the cause's handlers: said when finished, else a wake-up for the delayed ones. */
function afterCycle(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, logger: Logger, cycle: CycleResult,
  outcome: PatchOutcome,
): void {
  // A deletion's cycle ends in the finalizer's removal, not in waiting for changes: Kopf says nothing.
  if (cycle.done && cycle.kind !== 'noop' && cycle.kind !== 'free' && cycle.kind !== 'delete') {
    logger.debug(CYCLE_FINISHED);
  }
  if (cycle.delay === undefined) return;
  if (outcome.patched) {
    // A zero delay is no sleep to skip: Kopf says nothing then.
    if (cycle.delay) logger.debug(`Sleeping was skipped because of the patch, ${cycle.delay} seconds left.`);
  } else {
    const seconds = Math.min(cycle.delay, 600);
    logger.debug(`Sleeping for ${seconds} seconds for the delayed handlers.`);
    schedule(proc, key, memory, body, seconds);
    memory.sleepingUntil = currentClock().now() + seconds * 1000;
  }
}

/**
 * Index functions first; then Kopf's gate: no other handler runs before every index is complete.
 * An event that must wait is processed again, without indexing, when the gate opens.
 */
async function indexed(
  proc: ResourceProcessor, indexing: EventIndexing,
  input: { key: string; event: RawEvent; traits: Traits; memory: ObjectMemory; context: ResourceContext<KubeObject> },
): Promise<boolean> {
  const { key, event, memory, context } = input;
  if (input.traits.indexes && indexing.handlers.length) {
    // Index functions run on every event: their log lines are terse, and their patch is not applied.
    const logger = proc.logger.forObject(event.object, { terse: true });
    const indexContext = { ...context, logger, patch: newPatch(event.object) };
    const states = memory.indexing ??= new Map();
    await indexing.index(proc, { key, type: event.type, body: event.object, context: indexContext, states }, logger);
  }
  const held: RawEvent = { kind: 'indexed', type: event.type, object: event.object };
  return indexing.admit(key, () => proc.enqueue(key, held));
}

/**
 * The version our writes made, to be awaited before the next state-dependent decision. A write
 * that changed nothing (the same version back) brings no event: there is nothing to await.
 */
function remember(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, outcome: PatchOutcome,
): void {
  const timeout = proc.settings.persistence.consistencyTimeout;
  const written = outcome.resourceVersion;
  if (written && written !== body.metadata?.resourceVersion && timeout > 0) {
    proc.memories.wrote(key, memory, { version: written, deadline: Date.now() + timeout * 1000 });
  }
}

/** Seconds until `until`, to the millisecond, never negative. */
function secondsLeft(until: number): number {
  return Math.max(0, Math.round(until - currentClock().now()) / 1000);
}

/**
 * Re-processes the object later with the body seen now — still the latest one when the time
 * comes, since any newer event cancels the wake-up (and is processed instead).
 */
function schedule(proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, seconds: number): void {
  if (proc.stopping.aborted) return;
  memory.wakeup?.cancel();
  // On the operator's clock, as Kopf's delays are stored by it (a test's virtual clock moves both).
  memory.wakeup = currentClock().setTimer(() => {
    memory.wakeup = undefined;
    proc.enqueue(key, { kind: 'wakeup', type: 'MODIFIED', object: body });
  }, Math.max(0, seconds * 1000), false);
}

function throttle(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, logger: Logger, error: unknown,
): void {
  memory.throttle ??= { delays: new ErrorDelays(proc.settings.queueing.errorDelays), until: 0 };
  const delay = memory.throttle.delays.next();
  if (delay === undefined) {
    logger.error('Processing failed with an unexpected error; throttling is disabled.', error);
    memory.throttle = undefined;
    return;
  }
  memory.throttle.until = currentClock().now() + delay * 1000;
  const message = thrownText(error);
  logger.error(`Throttling for ${delay} seconds due to an unexpected error: ${message}`, error);
  schedule(proc, key, memory, body, delay);
}
