/**
 * One call of a handler of any kind, made the one way: a changing, event, index or activity
 * handler's attempt, a timer's or a daemon's run, a reconciler's run, an admission handler's
 * verdict. The call is made inside its span and timed when it is observed; what it returned or
 * threw is judged by its kind's rules (progress/outcomes.ts for Kopf's handlers, the reconciler's
 * run outcomes, admission's refusals), and the judgement is reported through the one port.
 */
import type { HandlerOutcome, HandlerObserver } from '../observation/metrics.ts';
import { startHandlerSpan, within, type TracedObject } from '../observation/tracing.ts';

/** A handler's call, and how its kind judges its end. */
export interface HandlerCall<O> {
  /** The handler's id: on its span, and the id its run is reported under (unless its observer names another). */
  readonly id: string;
  /** Attempts made before this one (0 on the first). */
  readonly retry: number;
  /** The object it is called for, on its span. */
  readonly object?: TracedObject;
  /** The cause it is called for, on its span. */
  readonly cause?: string | null;
  /** Where its run is reported (the operator's metrics), if anywhere. */
  readonly observer?: HandlerObserver;
  /** Its outcome when it returned. */
  returned(result: unknown): O;
  /** Its outcome when it threw; what this throws (a cancellation) goes on up, and the run is not reported. */
  threw(error: unknown): O;
  /** How the metrics name an outcome: a success, a failure to be retried, or one for good. */
  named(outcome: O): HandlerOutcome;
}

/** Calls the handler (`invoke`) as `call` describes it; resolves with the outcome its kind judged. */
export async function callHandler<O>(call: HandlerCall<O>, invoke: () => Promise<unknown>): Promise<O> {
  const { observer } = call;
  // Timed only when it is reported.
  const started = observer ? performance.now() : 0;
  const span = startHandlerSpan(call.id, call.retry, call.object, call.cause);
  let outcome: O;
  try {
    outcome = call.returned(await within(span, invoke));
  } catch (error) {
    outcome = call.threw(error);
  }
  observer?.ran(call.id, call.named(outcome), (performance.now() - started) / 1000);
  return outcome;
}
