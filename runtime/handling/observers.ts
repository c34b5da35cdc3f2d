/**
 * The observers of handlers' runs: the operator's metrics bound to what runs the handlers (a
 * resource and a kind), made here the one way for every kind. Without metrics there is none, and
 * a call pays for one check of an absent observer.
 */
import type { HandlerKind, HandlerObserver, OperatorMetrics } from '../observation/metrics.ts';

export type { HandlerObserver };

/** Reports the runs of handlers of this kind for this resource (`''` for activities); none without metrics. */
export function handlerObserver(
  metrics: OperatorMetrics | undefined, resource: string, kind: HandlerKind,
): HandlerObserver | undefined {
  return metrics && { ran: (id, outcome, seconds) => metrics.handlerRun(resource, id, kind, outcome, seconds) };
}

/**
 * Reports the runs of a parent's sub-handlers under the parent's id: nested, under the top-level
 * handler's, so that ids made of an object's content never become labels.
 */
export function reportedUnder(observer: HandlerObserver | undefined, parent: string): HandlerObserver | undefined {
  return observer && { ran: (_id, outcome, seconds) => observer.ran(parent, outcome, seconds) };
}
