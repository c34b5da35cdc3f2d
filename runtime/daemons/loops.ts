/**
 * The tasks behind timers and daemons (as Kopf's kopf/_core/engines/daemons.py runs them). Each
 * calls its handler as other handlers are called (limits, retries, Kopf's messages; the state is
 * kept in memory), and after every call applies its own patch: the result into `status.<id>`, and
 * whatever the handler put into `patch`.
 *
 *   daemon: initial delay → call until it succeeds or fails for good, sleeping the retry delays.
 *   timer:  initial delay → [wait for idleness] → call → sleep the interval (or to the next point
 *           of its grid, if sharp; or the retry delay after an error) → again, until stopped;
 *           its sleeps are entries in the process's due queue (due-queue.ts), not async frames.
 * Every sleep ends when the task is told to stop.
 */
import type { KubeObject } from '../structs/resources.ts';
import { Patch, type PatchFn } from '../structs/patches.ts';
import { thrownText } from '../structs/errors.ts';
import type { DaemonHandler, TimerHandler } from '../registry/handlers.ts';
import type { SpawningContext } from '../registry/contexts.ts';
import { executeOnce, type Attempt, type HandlerState } from '../handling/execution.ts';
import { deliverResult, Timestamp } from '../progress/index.ts';
import { applyPlan } from '../actions/application.ts';
import { observerOf, invokeForResult, objectContext } from '../actions/invocation.ts';
import type { ResourceScope } from '../actions/scope.ts';
import type { ObjectDaemons, Spawned } from './object-daemons.ts';
import { dueQueueOf, type Due, type DueQueue } from './due-queue.ts';
import { currentClock } from '../structs/clock.ts';

/** What one task works with: its record, its object's memory, and the resource's processor. */
export interface TaskEnv {
  spawned: Spawned;
  object: ObjectDaemons;
  proc: ResourceScope;
}

export async function runDaemon(env: TaskEnv, handler: DaemonHandler): Promise<void> {
  const { stopper, logger, title } = env.spawned;
  if (handler.initialDelay) await stopper.wait(handler.initialDelay);
  const call = new Call(env);
  while (!stopper.stopped) {
    const state = await call.once();
    if (state.success || state.failure) break;
    await stopper.wait(secondsUntil(state));
  }
  const how = stopper.stopped ? 'on request' : 'on its own';
  logger.debug(`${title} has exited ${how} and will not be retried or restarted.`);
}

/** Runs a timer from the process's due queue; settles when it has exited. */
export function runTimer(env: TaskEnv, handler: TimerHandler): Promise<void> {
  return new TimerRun(env, handler).exited;
}

/**
 * Seconds from the end of a call to the next: the whole interval; or, if sharp, what is left of the
 * interval the call began (the next point of the grid), so that a slow call does not shift it.
 */
export function intervalWait(interval: number, sharp: boolean | undefined, callSeconds: number): number {
  return sharp ? interval - (callSeconds % interval) : interval;
}

function secondsUntil(state: HandlerState): number {
  return state.delayed ? Math.max(0, state.delayed.secondsSince(Timestamp.now())) : 0;
}

/**
 * A timer of one object as a state machine that the due queue drives: while it waits it is an
 * entry in the queue, and no `async` frame of it is suspended. Its steps are those of a loop:
 * [wait for idleness] → call → sleep the interval (or to the next point of its grid, if sharp; or
 * the retry delay after an error) → again, until stopped. An idle timer without an interval waits
 * for the next change instead (checked every `idle` seconds). Told to stop while it waits, it
 * exits at once; while it calls its handler, when the call has ended.
 */
class TimerRun implements Due {
  at = 0;
  slot = -1;
  readonly exited: Promise<void>;
  private readonly env: TaskEnv;
  private readonly handler: TimerHandler;
  private readonly call: Call;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;
  /** Whether the next step waits for a change of the essence since the last call began. */
  private awaitingChange = false;
  private calling = false;
  /** When the last call began (its clock's `elapsed()`). */
  private started = 0;
  /** The queue of the timers on the operator's clock, which the timer's sleeps are entries of. */
  private readonly queue: DueQueue = dueQueueOf(currentClock());

  constructor(env: TaskEnv, handler: TimerHandler) {
    this.env = env;
    this.handler = handler;
    this.call = new Call(env);
    this.exited = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    env.spawned.stopper.onStop(() => {
      if (!this.calling) this.finish();
    });
    if (handler.initialDelay) this.sleep(handler.initialDelay);
    else this.fire();
  }

  fire(): void {
    try {
      this.step();
    } catch (error) {
      this.fail(error);
    }
  }

  private step(): void {
    if (this.env.spawned.stopper.stopped) return this.finish();
    const idle = this.handler.idle;
    if (idle === undefined) return this.begin();
    const resetAt = this.env.object.idleResetAt;
    if (this.awaitingChange && resetAt <= this.started) return this.sleep(idle);
    this.awaitingChange = false;
    const left = resetAt + idle * 1000 - this.queue.clock.elapsed();
    if (left > 0) return this.sleep(left / 1000);
    this.begin();
  }

  private begin(): void {
    this.calling = true;
    this.started = this.queue.clock.elapsed();
    this.call.once().then((state) => this.called(state), (error: unknown) => this.fail(error));
  }

  /** An error to retry keeps the count and sleeps its delay; a final outcome starts the retries anew. */
  private called(state: HandlerState): void {
    this.calling = false;
    if (this.env.spawned.stopper.stopped) return this.finish();
    if (!state.success && !state.failure) return this.sleep(secondsUntil(state));
    this.call.reset();
    const { interval, idle, sharp } = this.handler;
    const took = (this.queue.clock.elapsed() - this.started) / 1000;
    if (interval !== undefined) return this.sleep(intervalWait(interval, sharp, took));
    if (idle === undefined) return this.finish(); // neither interval nor idle: once
    this.awaitingChange = true;
    this.fire();
  }

  private sleep(seconds: number): void {
    this.queue.schedule(this, this.queue.clock.elapsed() + seconds * 1000);
  }

  private finish(): void {
    this.queue.remove(this);
    this.resolve();
  }

  private fail(error: unknown): void {
    this.calling = false;
    this.queue.remove(this);
    this.reject(error);
  }
}

/** Calls one handler for one object, attempt after attempt, with its state and leftover patch in memory. */
class Call {
  private readonly env: TaskEnv;
  private state: HandlerState | undefined;
  /** Transformations refused by a conflict: tried again with the next patch, as Kopf does. */
  private leftover: PatchFn[] = [];

  constructor(env: TaskEnv) { this.env = env; }

  reset(): void { this.state = undefined; }

  async once(): Promise<HandlerState> {
    const { spawned, object, proc } = this.env;
    const { handler, logger } = spawned;
    const patch = new Patch<KubeObject>({}, { body: object.body, fns: this.leftover });
    const options = {
      now: Timestamp.now(), defaultBackoff: proc.settings.execution.defaultBackoff, logger,
      noun: handler.kind === 'timer' ? 'Timer' : 'Daemon', cancelled: spawned.canceller.signal,
      observer: observerOf(proc, handler.kind),
    };
    const executed = await executeOnce(handler, this.state, options, (attempt) => this.invoke(attempt, patch));
    this.state = executed.state;
    deliverResult(patch, handler.id, executed.outcome);
    try {
      const outcome = await applyPlan(proc, object.body, { work: patch }, logger);
      this.leftover = outcome.conflict ? [...patch.fns] : [];
    } catch (error) {
      logger.error(`${spawned.title} could not write its results and patch: ${thrownText(error)}`, error);
    }
    return executed.state;
  }

  /** Not `async`: a daemon waits inside it for as long as it runs, and a frame less is memory less per object. */
  private invoke(attempt: Attempt, patch: Patch<KubeObject>): Promise<unknown> {
    const { spawned, object, proc } = this.env;
    const ctx = liveContext(this.env, patch, attempt);
    return invokeForResult(proc, spawned.logger, object.body, spawned.handler.fn, ctx);
  }
}

/** The handler's context, whose object parts are the object's live views (as in Kopf). */
function liveContext(env: TaskEnv, patch: Patch<KubeObject>, attempt: Attempt): SpawningContext<KubeObject> {
  const { spawned, object, proc } = env;
  const memory = { memo: object.memo, initial: false };
  const { body, spec, status, meta, labels, annotations } = object.views;
  return {
    ...objectContext(object.body, memory, spawned.logger, patch, proc),
    body, spec, status, meta, labels, annotations,
    ...attempt, param: spawned.handler.param, stopped: spawned.stopper, signal: spawned.canceller.signal,
  };
}
