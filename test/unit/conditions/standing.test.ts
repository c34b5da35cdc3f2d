import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusConditions, type CycleStanding, type HandlerStanding } from '../../../runtime/conditions/standing.ts';
import { freshState, Timestamp, type HandlerState } from '../../../runtime/progress/index.ts';
import type { Condition } from '../../../runtime/structs/kubetypes.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';

const NOW = new Date('2026-11-28T04:00:00.123Z');
const T0 = Timestamp.parse('2026-11-28T03:00:00.000000+00:00');

function body(status: object = {}, generation = 2): KubeObject {
  return { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'x', generation }, status };
}
function handler(id: string, state: Partial<HandlerState>): HandlerStanding {
  return { id, state: { ...freshState(T0, 'create'), ...state } };
}
function handled(...handlers: HandlerStanding[]): CycleStanding {
  return { handlers: { kind: 'handled', resumed: false, handlers } };
}
function conditionsOf(fragment: unknown): Record<string, Condition> {
  const list = (fragment as { status: { conditions: Condition[] } }).status.conditions;
  return Object.fromEntries(list.map((c) => [c.type, c]));
}

test('all handlers succeeded: Ready, not Reconciling, not Stalled, the generation observed', () => {
  const fragment = statusConditions(body(), handled(handler('a', { success: true })), undefined, NOW);
  const c = conditionsOf(fragment);
  assert.equal((fragment as { status: { observedGeneration: number } }).status.observedGeneration, 2);
  assert.deepEqual([c.Ready!.status, c.Reconciling!.status, c.Stalled!.status], ['True', 'False', 'False']);
  assert.equal(c.Ready!.lastTransitionTime, '2026-11-28T04:00:00Z');
  assert.equal(c.Ready!.observedGeneration, 2);
});

test('a handler retrying: Reconciling with its id, retry and error; the generation not observed', () => {
  const delayed = Timestamp.parse('2026-11-28T04:01:00.000000+00:00');
  const standing = handled(handler('a', { success: true }), handler('b', { retries: 2, delayed, message: 'boom' }));
  const fragment = statusConditions(body({ observedGeneration: 1 }), standing, undefined, NOW);
  const c = conditionsOf(fragment);
  assert.equal('observedGeneration' in (fragment as { status: object }).status, false);
  assert.equal(c.Reconciling!.status, 'True');
  assert.equal(c.Reconciling!.reason, 'HandlerRetrying');
  assert.match(c.Reconciling!.message, /Handler 'b' failed \(retry 2\).*: boom$/);
  assert.deepEqual([c.Ready!.status, c.Ready!.reason, c.Stalled!.status], ['False', 'HandlerRetrying', 'False']);
});

test('a handler not yet run is pending', () => {
  const c = conditionsOf(statusConditions(body(), handled(handler('a', {})), undefined, NOW));
  assert.deepEqual([c.Reconciling!.status, c.Reconciling!.reason], ['True', 'HandlerPending']);
});

test('a handler failed for good: Stalled with its message, not Ready, the generation observed', () => {
  const standing = handled(handler('a', { failure: true, message: 'no way' }));
  const fragment = statusConditions(body(), standing, undefined, NOW);
  const c = conditionsOf(fragment);
  assert.deepEqual([c.Stalled!.status, c.Stalled!.reason], ['True', 'HandlerFailed']);
  assert.equal(c.Stalled!.message, "Handler 'a' failed permanently: no way");
  assert.deepEqual([c.Ready!.status, c.Reconciling!.status], ['False', 'False']);
  assert.equal((fragment as { status: { observedGeneration: number } }).status.observedGeneration, 2);
});

test('nothing is written when the object says it already; an unchanged object keeps its failure', () => {
  const failed = statusConditions(body(), handled(handler('a', { failure: true, message: 'x' })), undefined, NOW);
  const stored = body((failed as { status: object }).status);
  assert.equal(statusConditions(stored, { handlers: { kind: 'unchanged' } }, undefined, NOW), undefined);
  const resumed: CycleStanding = { handlers: { kind: 'handled', resumed: true, handlers: [] } };
  assert.equal(statusConditions(stored, resumed, undefined, NOW), undefined);
  // A new generation's handling starts afresh.
  const next = statusConditions(body((failed as { status: object }).status, 3), handled(), undefined, NOW);
  assert.equal(conditionsOf(next).Ready!.status, 'True');
});

test('the reconciler: retrying is Reconciling, a PermanentError is Stalled, a requeue is Reconciling', () => {
  const none = { kind: 'handled', resumed: false, handlers: [] } as const;
  const retrying = statusConditions(body(), {
    handlers: none, reconciler: { id: 'r', kind: 'retrying', retry: 1, delay: 5, message: 'later' },
  }, undefined, NOW);
  assert.equal(conditionsOf(retrying).Reconciling!.reason, 'ReconcilerRetrying');
  const failed = statusConditions(body(), { handlers: none, reconciler: { id: 'r', kind: 'failed', message: 'never' } },
    undefined, NOW);
  assert.equal(conditionsOf(failed).Stalled!.message, "Reconciler 'r' failed permanently: never");
  const requeued = statusConditions(body(), { handlers: none, reconciler: { id: 'r', kind: 'requeued', delay: 9 } },
    undefined, NOW);
  const { Reconciling, Ready } = conditionsOf(requeued);
  assert.deepEqual([Reconciling!.status, Ready!.status], ['True', 'False']);
});

test("a handler's own conditions in the work are kept, and the list is written with them", () => {
  const own: Condition = { type: 'Mine', status: 'True', lastTransitionTime: 'x', reason: 'R', message: '' };
  const done = statusConditions(body(), handled(), undefined, NOW);
  const stored = body((done as { status: object }).status);
  const fragment = statusConditions(stored, handled(), [own], NOW);
  assert.deepEqual(Object.keys(conditionsOf(fragment)), ['Mine', 'Reconciling', 'Stalled', 'Ready']);
});
