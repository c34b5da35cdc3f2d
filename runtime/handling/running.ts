/**
 * One pass over the handlers that are due for a cause: select by the lifecycle, execute each
 * once, record its new state and result. Sub-handlers use the same pass, nested under their
 * parent's id, which is why the pass takes its handlers as an argument.
 */
import { HandlerChildrenRetry } from '../structs/errors.ts';
import type { Logger } from '../logging/index.ts';
import type { ChangingHandler } from '../registry/handlers.ts';
import type { Reason } from '../registry/contexts.ts';
import { freshState, isAwakened, isFinished, Timestamp, type HandlerState } from '../progress/index.ts';
import { executeOnce, type Attempt } from './execution.ts';
import type { Lifecycle } from './lifecycles.ts';
import { reportedUnder, type HandlerObserver } from './observers.ts';

export type { Attempt };

/** The states of this object's handlers during one cycle: read lazily, written back at the end. */
export interface StateBook {
  get(id: string): HandlerState | undefined;
  set(id: string, state: HandlerState): void;
}

export interface PassEnv {
  reason: Reason;
  states: StateBook;
  lifecycle: Lifecycle;
  defaultBackoff: number;
  logger: Logger;
  now: Timestamp;
  /** Results of succeeded handlers, to be written into `status.<id>`. */
  results: Map<string, unknown>;
  /** Aborted to cancel the handlers (see `ExecutionOptions.cancelled`). */
  cancelled?: AbortSignal;
  /** Where the handlers' runs are reported (the operator's metrics), if anywhere. */
  observer?: HandlerObserver;
  /** Calls the handler's function with its context; `children` collects its sub-handlers. */
  invoke(handler: ChangingHandler, attempt: Attempt, children: Children): Promise<unknown>;
}

/** Sub-handlers a handler registered or asked to execute during one invocation. */
export class Children {
  readonly registered: ChangingHandler[] = [];
  executed = false;
  readonly parent: ChangingHandler;
  readonly env: PassEnv;
  constructor(parent: ChangingHandler, env: PassEnv) { this.parent = parent; this.env = env; }
}

export interface PassSummary {
  /** All handlers are finished (succeeded or failed for good). */
  done: boolean;
  succeeded: number;
  failed: number;
  /** Seconds until the earliest unfinished handler is due; `undefined` when all are finished. */
  delay: number | undefined;
}

export async function runPass(handlers: readonly ChangingHandler[], env: PassEnv): Promise<PassSummary> {
  const due = handlers.filter((h) => { const s = env.states.get(h.id); return !s || isAwakened(s, env.now); });
  const chosen = env.lifecycle(due.map((h) => ({ handler: h, retries: env.states.get(h.id)?.retries ?? 0 })));
  for (const { handler } of chosen) await runOne(handler, env);
  // Handlers not run in this pass get their first record now, as Kopf does: their time starts.
  for (const h of handlers) if (!env.states.get(h.id)) env.states.set(h.id, freshState(env.now, env.reason));
  return summarize(handlers, env);
}

async function runOne(handler: ChangingHandler, env: PassEnv): Promise<void> {
  const children = new Children(handler, env);
  const executed = await executeOnce(handler, env.states.get(handler.id), {
    now: env.now, defaultBackoff: env.defaultBackoff, logger: env.logger, purpose: env.reason, cancelled: env.cancelled,
    observer: env.observer,
    subrefs: () => subrefsOf(children, env.states),
  }, async (attempt) => {
    const result = await env.invoke(handler, attempt, children);
    // Sub-handlers registered but not executed in place run after their parent returns.
    if (children.registered.length && !children.executed) await runChildren(children);
    return result;
  });
  env.states.set(handler.id, executed.state);
  const { exception, result } = executed.outcome;
  if (exception === null && result !== undefined && result !== null) {
    env.results.set(handler.id, result);
  }
}

/** Runs a parent's sub-handlers; throws to retry the parent until all of them are finished. */
export async function runChildren(children: Children): Promise<void> {
  children.executed = true;
  const { env, parent } = children;
  const observer = reportedUnder(env.observer, parent.id);
  const summary = await runPass(children.registered, { ...env, observer, now: Timestamp.now() });
  if (!summary.done) throw new HandlerChildrenRetry(summary.delay ?? 0);
}

function subrefsOf(children: Children, states: StateBook): string[] {
  const ids = new Set<string>();
  for (const child of children.registered) {
    ids.add(child.id);
    for (const grandchild of states.get(child.id)?.subrefs ?? []) ids.add(grandchild);
  }
  return [...ids];
}

function summarize(handlers: readonly ChangingHandler[], env: PassEnv): PassSummary {
  let succeeded = 0, failed = 0, delay: number | undefined;
  for (const h of handlers) {
    const state = env.states.get(h.id);
    if (state?.success) succeeded++;
    else if (state?.failure) failed++;
    else {
      const wait = state?.delayed ? Math.max(0, state.delayed.secondsSince(Timestamp.now())) : 0;
      delay = delay === undefined ? wait : Math.min(delay, wait);
    }
  }
  return { done: succeeded + failed === handlers.length, succeeded, failed, delay };
}

export { isFinished };
