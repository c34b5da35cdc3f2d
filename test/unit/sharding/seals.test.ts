/**
 * The ring's seals: what the ring seals opens with its key only; a seal made for one object, member,
 * incarnation or state opens for no other; a Lease's seal covers its holder and its renewal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RingSeals, keySecretName, newIncarnation } from '../../../runtime/sharding/seals.ts';

const seals = new RingSeals('r', Buffer.alloc(32, 1));
const assignment = { state: 'assigned', member: 'r-1', incarnation: 'inc', sequence: 7 } as const;

test('an assignment sealed by the ring opens as itself, for its object only', () => {
  const seal = seals.sealAssignment('uid-1', assignment);
  assert.deepEqual(seals.openAssignment('uid-1', seal), assignment);
  assert.equal(seals.openAssignment('uid-2', seal), undefined);
  assert.equal(new RingSeals('other', Buffer.alloc(32, 1)).openAssignment('uid-1', seal), undefined);
  assert.equal(new RingSeals('r', Buffer.alloc(32, 2)).openAssignment('uid-1', seal), undefined);
});

test('a seal with any field changed, or not a seal at all, opens as nothing', () => {
  const seal = seals.sealAssignment('uid-1', assignment);
  const [state, member, incarnation, sequence, mac] = seal.split(':');
  for (const forged of [
    [state, 'r-2', incarnation, sequence, mac], [state, member, 'other', sequence, mac],
    [state, member, incarnation, '8', mac], ['released', member, incarnation, sequence, mac],
    [state, member, incarnation, sequence, `${mac}x`], [state, member, incarnation, sequence],
  ]) assert.equal(seals.openAssignment('uid-1', forged.join(':')), undefined, forged.join(':'));
  for (const junk of [undefined, null, 42, {}, '', 'true', 'x'.repeat(10_000), `${seal}\n`]) {
    assert.equal(seals.openAssignment('uid-1', junk), undefined);
  }
  assert.equal(seals.openAssignment(undefined, seal), undefined);
});

test('a Lease\'s seal names its incarnation and covers its holder and renewal time', () => {
  const state = { member: 'r-1', holder: 'me', renewTime: '2026-01-01T00:00:00.000000Z' };
  const seal = seals.sealLease({ ...state, incarnation: 'inc' });
  assert.equal(seals.openLease(state, seal), 'inc');
  assert.equal(seals.openLease({ ...state, holder: 'other' }, seal), undefined);
  assert.equal(seals.openLease({ ...state, holder: '' }, seal), undefined);
  assert.equal(seals.openLease({ ...state, renewTime: '2030-01-01T00:00:00.000000Z' }, seal), undefined);
  assert.equal(seals.openLease({ ...state, member: 'r-2' }, seal), undefined);
  assert.equal(seals.openLease(state, 'inc:forged'), undefined);
  assert.equal(seals.openLease(state, undefined), undefined);
});

test('the key\'s Secret is named after the ring; incarnations differ', () => {
  assert.equal(keySecretName('r'), 'r-ring-key');
  assert.notEqual(newIncarnation(), newIncarnation());
  assert.match(newIncarnation(), /^[A-Za-z0-9_-]+$/);
});
