/**
 * A ring's replicas in peering: they write their records marked with the ring, and judge the
 * records of their siblings (the same mark) as no reason to pause, while any other peer of the same
 * or a higher priority still pauses them, as Kopf's peering does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge } from '../../../runtime/peering/observer.ts';
import { isRingPeer, ringPeerIdentity } from '../../../runtime/sharding/labels.ts';

const NOW = Date.parse('2026-11-25T14:20:00Z');
const record = (priority: number) => ({ priority, lifetime: 60, lastseen: new Date(NOW - 1000).toISOString() });
const me = ringPeerIdentity('shop', 'pod-a');
const own = { identity: me, priority: 0, siblings: (identity: string) => isRingPeer('shop', identity) };

test('a sibling of the same priority is no conflict', () => {
  const status = { [me]: record(0), [ringPeerIdentity('shop', 'pod-b')]: record(0) };
  assert.equal(judge(status, own, NOW).kind, 'free');
});

test('a replica of another ring, or an operator outside any, of the same priority is a conflict', () => {
  assert.equal(judge({ [me]: record(0), [ringPeerIdentity('other', 'pod-c')]: record(0) }, own, NOW).kind, 'conflict');
  assert.equal(judge({ [me]: record(0), 'someone-else': record(0) }, own, NOW).kind, 'conflict');
});

test('a peer of a higher priority (kopf freeze, a --dev operator) still pauses the ring', () => {
  assert.equal(judge({ [me]: record(0), freezer: record(100) }, own, NOW).kind, 'outranked');
});
