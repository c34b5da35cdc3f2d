/**
 * Requests for the queue's tests: a name (what the test follows) under each kind of
 * `runtime/queueing/requests.ts`.
 */
import type { RequestKind } from '../../../runtime/queueing/requests.ts';

export interface Named<T> {
  readonly kind: RequestKind;
  readonly name: T;
}

/** A watch event. */
export const ev = <T>(name: T): Named<T> => ({ kind: 'event', name });
/** A watch event held for the indexes, released. */
export const held = <T>(name: T): Named<T> => ({ kind: 'indexed', name });
/** A reconcile request. */
export const req = <T>(name: T): Named<T> => ({ kind: 'reconcile', name });
