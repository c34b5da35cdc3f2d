/**
 * The per-event logic (Kopf §5.6): what one watch event of one object leads to.
 *
 *   event handlers → stealth check → finalizer → consistency → cause → one pass of handlers →
 *   finalizer removal → patch → delayed re-processing.
 *
 * One cycle writes a few requests, the handlers' work before the records of it (`writes.ts`), and
 * every handler's progress is on the object before the next handler starts, so a crash or a
 * restart (of this runtime or of Kopf) resumes where the records say, at worst running again a
 * handler whose work was written but not its record.
 */
import type { KubeObject } from '../structs/resources.ts';
import { getObject, isNotFound } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { prematches, seesChange } from '../registry/filters.ts';
import { sleep } from '../queueing/sleeping.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processor.ts';
import { runEventHandlers } from './events.ts';
import { detectChange, handleCause, type Change } from './changing.ts';
import { TooLargeError } from '../actions/oversize.ts';
import { reportRefusal } from './refusals.ts';
import { jsonEqual } from '../structs/diffs.ts';
import { isReason } from './causes.ts';
import { Finalizers } from './finalizers.ts';
import { applyPatch, newPatch, type PatchOutcome } from '../actions/application.ts';
import { objectContext } from '../actions/invocation.ts';
import { thrownText } from '../structs/errors.ts';
import { UnreadableStateError } from '../progress/index.ts';
import type { RawEvent } from '../actions/scope.ts';

/** Processes one event; never throws — unexpected errors throttle the object instead. */
export async function processEvent(
  proc: ResourceProcessor, key: string, event: RawEvent, pressure: AbortSignal,
): Promise<void> {
  const memory = proc.memories.recall(key, event.type === null);
  const logger = proc.logger.forObject(event.object);
  if (memory.wakeup) {
    clearTimeout(memory.wakeup);
    memory.wakeup = undefined;
    // As Kopf's sleep in the worker is cut short by the next event: it is processed at once.
    if (memory.sleepingUntil !== undefined) {
      logger.debug(`Sleeping was interrupted by new changes, ${secondsLeft(memory.sleepingUntil)} seconds left.`);
    }
  }
  memory.sleepingUntil = undefined;

  // The wake-up is the throttle's own timer (scheduling one clears any other): it ends the delay
  // even if it fires a millisecond before the wall clock says so, as Node's timers may.
  if (memory.throttle && !event.wakeup && Date.now() < memory.throttle.until) {
    schedule(proc, key, memory, event.object, (memory.throttle.until - Date.now()) / 1000);
    return;
  }
  if (memory.throttle && event.wakeup) logger.info('Throttling is over. Switching back to normal operations.');
  try {
    await processObject(proc, key, event, memory, logger, pressure);
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

async function processObject(
  proc: ResourceProcessor, key: string, event: RawEvent, memory: ObjectMemory, logger: Logger, pressure: AbortSignal,
): Promise<void> {
  const { changing, watching } = proc;
  const body = event.object;
  if (!(await indexed(proc, key, event, memory))) return;

  const eventPatch = newPatch(body);
  if (watching.length) await runEventHandlers(proc, watching, event, memory, logger, eventPatch);

  if (event.type === 'DELETED') {
    if (changing.length) logger.debug('Deleted, really deleted, and we are notified.');
    proc.spawner?.forget(key);
    proc.memories.forget(key);
    return;
  }
  if ((!changing.length && !proc.spawner) || memory.released) {
    // No changing handlers; or we let the object go at its deletion, and this event predates that.
    await applyPatch(proc, body, eventPatch, logger); // results of event handlers, if any
    return;
  }
  const finalizers = new Finalizers(proc.settings.persistence.finalizer, body);
  // Filters see the change as the handlers would (reason, diff, old, new), as in Kopf. Reading it
  // (the essence, the diff-base, their diff) is put off until it is needed when no filter looks at
  // it: an event may end in the finalizer's addition or in waiting for our own write, without it.
  let change: Change | undefined;
  const changeNow = (): Change => change ??= detectChange(proc, body, memory, finalizers, event.type);
  if (changing.some((h) => seesChange(h.filters))) changeNow();
  const seen = change && {
    reason: isReason(change.kind) ? change.kind : undefined, diff: change.diff, old: change.old, new: change.current,
  };
  const ctx = { ...objectContext(body, memory, logger, eventPatch, proc), ...seen };
  const interested = changing.filter((h) => prematches(h.filters, body, ctx));
  // Timers and daemons are spawned, matched and stopped on every event, before the finalizer is
  // added (as in Kopf), and hold the finalizer while the object is deleted until they have exited.
  const spawning = proc.spawner?.handle({
    key, body, memo: memory.memo, deleting: finalizers.deleting, ctx, changed: () => changeNow().diff.length > 0,
  });
  const required = interested.some((h) => h.requiresFinalizer) || Boolean(spawning?.required);
  if ((!interested.length && !spawning?.required) || (!required && finalizers.present)) {
    // Stealth (nothing of ours applies), or our finalizer is no longer needed: let go of it.
    await applyPatch(proc, body, eventPatch, logger);
    if (finalizers.present && !spawning?.holding) {
      const message = 'Removing the finalizer, as there are no handlers requiring it.';
      await removeFinalizer(proc, body, finalizers, logger, message, memory);
    }
    return;
  }
  if (required && !finalizers.present && !finalizers.deleting) {
    await applyPatch(proc, body, eventPatch, logger);
    logger.debug('Adding the finalizer, thus preventing the actual deletion.');
    remember(proc, memory, await applyPatch(proc, body, newPatch(body), logger, finalizers.addOps()));
    return;
  }
  if (!interested.length) {
    // Only timers and daemons: the finalizer goes once the deleted object's tasks have exited.
    await applyPatch(proc, body, eventPatch, logger);
    if (finalizers.deleting && finalizers.present && !spawning?.holding) {
      const message = 'Removing the finalizer, thus allowing the actual deletion.';
      const outcome = await removeFinalizer(proc, body, finalizers, logger, message, memory);
      if (outcome.jsonApplied) memory.released = true;
    }
    return;
  }

  if (finalizers.deleting && spawning?.holding) {
    // The deletion's handlers wait until the timers and daemons have exited (which re-queues the
    // object): their cycle ends in the finalizer's removal, which must not come before that.
    await applyPatch(proc, body, eventPatch, logger);
    return;
  }

  if (!(await consistent(proc, key, memory, body, pressure))) return;
  if (refusedBefore(memory, changeNow(), logger)) return;

  const cause = { body, handlers: interested, memory, logger, patch: eventPatch, change: changeNow() };
  const cycle = await handleCause(proc, cause);
  if (cycle.kind === 'noop') {
    logger.debug('Something has changed, but we are not interested (the essence is the same).');
  }
  if (cycle.kind === 'free') logger.debug('Deletion, but we are done with it, and we do not care.');

  let jsonOps = undefined;
  if (finalizers.deleting && finalizers.present && cycle.done) {
    logger.debug('Removing the finalizer, thus allowing the actual deletion.');
    jsonOps = finalizers.removeOps();
  }
  // A transformation refused by a conflict stops the writes before the records of the work: the
  // handlers run again on the next event, and their transformations with them.
  let outcome: PatchOutcome;
  try {
    outcome = await applyPatch(proc, body, cycle.patch, logger, jsonOps, cycle.records);
  } catch (error) {
    if (!(error instanceof TooLargeError)) throw error;
    // The work may be written and its records not: its handlers must not run again on its echo.
    memory.oversized = changeNow().current;
    reportRefusal(proc, body, logger, 'TooLarge', `${error.message}. The handlers are not run again until the object `
      + 'changes; make what they write smaller (for the diff-base: keep it in status, or leave its large fields out).');
    return;
  }
  if (jsonOps && outcome.jsonApplied) memory.released = true;
  remember(proc, memory, outcome);
  // A deletion's cycle ends in the finalizer's removal, not in waiting for changes: Kopf says nothing.
  if (cycle.done && cycle.kind !== 'noop' && cycle.kind !== 'free' && cycle.kind !== 'delete') {
    logger.debug('Handling cycle is finished, waiting for new changes.');
  }

  if (cycle.delay !== undefined) {
    if (outcome.patched) {
      // A zero delay is no sleep to skip: Kopf says nothing then.
      if (cycle.delay) logger.debug(`Sleeping was skipped because of the patch, ${cycle.delay} seconds left.`);
    } else {
      const seconds = Math.min(cycle.delay, 600);
      logger.debug(`Sleeping for ${seconds} seconds for the delayed handlers.`);
      schedule(proc, key, memory, body, seconds);
      memory.sleepingUntil = Date.now() + seconds * 1000;
    }
  }
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

/**
 * Index functions first; then Kopf's gate: no other handler runs before every index is complete.
 * An event that must wait is processed again, without indexing, when the gate opens.
 */
async function indexed(proc: ResourceProcessor, key: string, event: RawEvent, memory: ObjectMemory): Promise<boolean> {
  const indexing = proc.indexing;
  if (!indexing) return true;
  if (!event.indexed && indexing.handlers.length) {
    // Index functions run on every event: their log lines are terse, and their patch is not applied.
    const logger = proc.logger.forObject(event.object, { terse: true });
    const context = objectContext(event.object, memory, logger, newPatch(event.object), proc);
    const states = memory.indexing ??= new Map();
    await indexing.index(proc, { key, type: event.type, body: event.object, context, states }, logger);
  }
  const waited: RawEvent = { ...event, indexed: true };
  return indexing.admit(key, () => (proc.offer ? proc.offer(key, waited) : proc.requeue(key, waited)));
}

async function removeFinalizer(
  proc: ResourceProcessor, body: KubeObject, finalizers: Finalizers, logger: Logger, message: string,
  memory: ObjectMemory,
): Promise<PatchOutcome> {
  logger.debug(message);
  const outcome = await applyPatch(proc, body, newPatch(body), logger, finalizers.removeOps());
  remember(proc, memory, outcome);
  return outcome;
}

/**
 * After our own patch, hold state-dependent handling until the watch shows our version (§5.4).
 * If it does not come in time (a silent or broken stream), the object is read afresh instead of
 * handled as this event shows it: the event may predate our last write, which records what is
 * done (a handler's result comes before its record), and handling it would run that handler again.
 */
async function consistent(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, pressure: AbortSignal,
): Promise<boolean> {
  const expected = memory.expected;
  if (!expected) return true;
  if (body.metadata?.resourceVersion === expected.version) { memory.expected = undefined; return true; }
  const left = (expected.deadline - Date.now()) / 1000;
  // A newer event cuts the wait short: it will be processed instead of this one.
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
  proc.requeue(key, { type: 'MODIFIED', object: fresh });
  return true;
}

function remember(proc: ResourceProcessor, memory: ObjectMemory, outcome: PatchOutcome): void {
  const timeout = proc.settings.persistence.consistencyTimeout;
  if (outcome.resourceVersion && timeout > 0) {
    memory.expected = { version: outcome.resourceVersion, deadline: Date.now() + timeout * 1000 };
  }
}

/** Seconds until `until`, to the millisecond, never negative. */
function secondsLeft(until: number): number {
  return Math.max(0, Math.round(until - Date.now()) / 1000);
}

/**
 * Re-processes the object later with the body seen now — still the latest one when the time
 * comes, since any newer event cancels the wake-up (and is processed instead).
 */
function schedule(proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, seconds: number): void {
  if (proc.stopping.aborted) return;
  if (memory.wakeup) clearTimeout(memory.wakeup);
  memory.wakeup = setTimeout(() => {
    memory.wakeup = undefined;
    proc.requeue(key, { type: 'MODIFIED', object: body, wakeup: true });
  }, Math.max(0, seconds * 1000));
  memory.wakeup.unref?.();
}

function throttle(
  proc: ResourceProcessor, key: string, memory: ObjectMemory, body: KubeObject, logger: Logger, error: unknown,
): void {
  memory.throttle ??= { delays: proc.settings.queueing.errorDelays[Symbol.iterator](), until: 0, last: 0 };
  const next = memory.throttle.delays.next();
  const delay = next.done ? memory.throttle.last : next.value;
  if (next.done && !memory.throttle.last) {
    logger.error('Processing failed with an unexpected error; throttling is disabled.', error);
    memory.throttle = undefined;
    return;
  }
  memory.throttle.last = delay;
  memory.throttle.until = Date.now() + delay * 1000;
  const message = thrownText(error);
  logger.error(`Throttling for ${delay} seconds due to an unexpected error: ${message}`, error);
  schedule(proc, key, memory, body, delay);
}
