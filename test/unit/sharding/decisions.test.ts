/**
 * The assigner's decisions, as pure functions: where an object goes given its labels, the ring's
 * wish and the living members; what an object is placed by (a child by its controller); the labels
 * read from an object; a label that the ring did not seal is drained (never run, never moved
 * directly from a living member), and a sealed one whose label or seal was changed is put back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideMove, placementKey } from '../../../runtime/sharding/decisions.ts';
import { buildEssence } from '../../../runtime/progress/essence.ts';
import {
  DRAIN_VALUE, drainLabel, memberName, memberSelector, placementOf, sealAnnotation, shardLabel,
} from '../../../runtime/sharding/ring-labels.ts';

const alive = new Set(['a', 'b']);

test('an object not assigned is assigned where the ring wants it', () => {
  assert.deepEqual(decideMove({ shard: undefined, draining: false }, 'a', alive), { kind: 'assign', to: 'a' });
});

test('an object of a member gone is assigned directly, without a drain, also while draining', () => {
  assert.deepEqual(decideMove({ shard: 'gone', draining: false }, 'b', alive), { kind: 'assign', to: 'b' });
  assert.deepEqual(decideMove({ shard: 'gone', draining: true }, 'b', alive), { kind: 'assign', to: 'b' });
});

test('an object of a living member the ring no longer wants is drained, never reassigned directly', () => {
  assert.deepEqual(decideMove({ shard: 'a', draining: false }, 'b', alive), { kind: 'drain' });
});

test('a draining object waits for the acknowledgement, even if the ring wants it back where it is', () => {
  assert.deepEqual(decideMove({ shard: 'a', draining: true }, 'b', alive), { kind: 'stay' });
  assert.deepEqual(decideMove({ shard: 'a', draining: true }, 'a', alive), { kind: 'stay' });
});

test('an object where the ring wants it stays; an empty ring moves nothing', () => {
  assert.deepEqual(decideMove({ shard: 'a', draining: false }, 'a', alive), { kind: 'stay' });
  assert.deepEqual(decideMove({ shard: undefined, draining: false }, undefined, new Set()), { kind: 'stay' });
  assert.deepEqual(decideMove({ shard: 'a', draining: false }, undefined, alive), { kind: 'stay' });
});

test('an object is placed by its controller\'s uid if it has one, else by its own', () => {
  const own = { metadata: { uid: 'u1', name: 'x', namespace: 'ns' } };
  assert.equal(placementKey(own), 'u1');
  const child = { metadata: { uid: 'u2', ownerReferences: [
    { apiVersion: 'v1', kind: 'X', name: 'other', uid: 'u3' },
    { apiVersion: 'v1', kind: 'X', name: 'parent', uid: 'u1', controller: true },
  ] } };
  assert.equal(placementKey(child), 'u1');
});

test('an object\'s placement is read from its ring\'s labels only', () => {
  const labels = { [shardLabel('r')]: 'r-1', [drainLabel('r')]: DRAIN_VALUE, [shardLabel('other')]: 'other-2' };
  assert.deepEqual(placementOf({ metadata: { labels } }, 'r'), { shard: 'r-1', draining: true });
  assert.deepEqual(placementOf({ metadata: { labels } }, 'other'), { shard: 'other-2', draining: false });
  assert.deepEqual(placementOf({ metadata: {} }, 'r'), { shard: undefined, draining: false });
});

test('the labels and names on the wire', () => {
  assert.equal(shardLabel('r'), 'shard.kopf.zalando.org/r');
  assert.equal(drainLabel('r'), 'drain.kopf.zalando.org/r');
  assert.match(memberName('r', 'user@host/1/abc'), /^r-[0-9a-f]{10}$/);
  assert.equal(memberName('r', 'x'), memberName('r', 'x'));
  assert.notEqual(memberName('r', 'x'), memberName('r', 'y'));
  assert.equal(memberSelector('r', 'r-1'), 'shard.kopf.zalando.org/r=r-1');
});

test('a label the ring did not seal, on a living member, is drained (its member seals a release); never moved '
  + 'directly', () => {
  const unsealed = { shard: 'a', draining: false, verified: false };
  assert.deepEqual(decideMove(unsealed, 'a', alive), { kind: 'drain' });
  assert.deepEqual(decideMove(unsealed, 'b', alive), { kind: 'drain' });
  assert.deepEqual(decideMove({ ...unsealed, draining: true }, 'b', alive), { kind: 'stay' });
  // A label naming no living member: nobody runs the object (no seal), so it is assigned.
  assert.deepEqual(decideMove({ ...unsealed, shard: 'fake' }, 'b', alive), { kind: 'assign', to: 'b' });
});

test('a sealed placement whose label or seal was changed by someone else is put back, not moved', () => {
  const changed = { shard: 'a', draining: false, verified: true, intact: false };
  assert.deepEqual(decideMove(changed, 'a', alive), { kind: 'restore' });
  assert.deepEqual(decideMove(changed, 'b', alive), { kind: 'restore' });
});

test('a ring\'s labels are no change for the handlers: the essence leaves them out, and keeps the others', () => {
  const labels = { app: 'x', [shardLabel('r')]: 'r-1', [drainLabel('r')]: DRAIN_VALUE };
  const body = { metadata: { labels }, spec: { a: 1 } };
  assert.deepEqual(buildEssence(body), { spec: { a: 1 }, metadata: { labels: { app: 'x' } } });
  const moved = { metadata: { labels: { app: 'x', [shardLabel('r')]: 'r-2' } }, spec: { a: 1 } };
  assert.deepEqual(buildEssence(moved), buildEssence(body));
  // Nor is the ring's seal, an annotation beside the label.
  const sealed = { metadata: { labels, annotations: { [sealAnnotation('r')]: 'assigned:r-1:i:1:mac', keep: 'y' } },
    spec: { a: 1 } };
  const kept = { spec: { a: 1 }, metadata: { labels: { app: 'x' }, annotations: { keep: 'y' } } };
  assert.deepEqual(buildEssence(sealed), kept);
});
