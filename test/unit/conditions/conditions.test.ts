import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setCondition } from '../../../runtime/index.ts';
import { Patch } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';

const EARLIER = '2020-01-02T03:04:05Z';

function object(conditions: unknown, generation = 3): KubeObject {
  return {
    apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'x', generation },
    status: { conditions },
  };
}

test('setCondition keeps lastTransitionTime when the status stays, and says the generation', () => {
  const body = object([{ type: 'Ready', status: 'True', lastTransitionTime: EARLIER, reason: 'Old', message: '' }]);
  const patch = new Patch<KubeObject>({}, { body });
  const set = setCondition({ body, patch }, { type: 'Ready', status: 'True', reason: 'StillFine', message: 'ok' });
  assert.deepEqual(set, {
    type: 'Ready', status: 'True', observedGeneration: 3, lastTransitionTime: EARLIER,
    reason: 'StillFine', message: 'ok',
  });
  assert.deepEqual(patch.status.conditions, [set]);
});

test('setCondition moves lastTransitionTime when the status changes', () => {
  const body = object([{ type: 'Ready', status: 'True', lastTransitionTime: EARLIER, reason: 'Old', message: '' }]);
  const patch = new Patch<KubeObject>({}, { body });
  const before = Date.now() - 1000;
  const set = setCondition({ body, patch }, { type: 'Ready', status: 'False', reason: 'Broken' });
  assert.notEqual(set.lastTransitionTime, EARLIER);
  assert.match(set.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Date.parse(set.lastTransitionTime) >= before);
  assert.equal(set.message, '');
});

test('setCondition keeps the other conditions, and those an earlier call put in the patch', () => {
  const other = { type: 'Mine', status: 'Unknown', lastTransitionTime: EARLIER, reason: 'Mine', message: '' };
  const body = object([other, 'not a condition', { status: 'True' }]);
  const patch = new Patch<KubeObject>({}, { body });
  setCondition({ body, patch }, { type: 'Ready', status: 'False', reason: 'Waiting' });
  setCondition({ body, patch }, { type: 'Synced', status: 'True', reason: 'Done' });
  const types = (patch.status.conditions as { type: string }[]).map((c) => c.type);
  assert.deepEqual(types, ['Mine', 'Ready', 'Synced']);
});

test('setCondition on an object without status or generation', () => {
  const body: KubeObject = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } };
  const patch = new Patch<KubeObject>({}, { body });
  const set = setCondition({ body, patch }, { type: 'Ready', status: 'True', reason: 'Fine' });
  assert.equal('observedGeneration' in set, false);
  assert.equal((patch.status.conditions as unknown[]).length, 1);
});
