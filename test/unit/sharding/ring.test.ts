/**
 * Consistent hashing: the same keys go to the same members in every process (positions are
 * SHA-256, not a per-process seed); with many virtual nodes each member's share is near fair; a
 * member that joins takes keys only from the others (nothing moves between them), and one that
 * leaves gives only its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HashRing, VIRTUAL_NODES, positionOf } from '../../../runtime/sharding/ring.ts';

const KEYS = Array.from({ length: 30_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

function shares(ring: HashRing, keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const owner = ring.owner(key)!;
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}

test('positions are stable: fixed values, whatever the process', () => {
  assert.equal(positionOf(''), 0xe3b0c442);
  assert.equal(positionOf('abc'), 0xba7816bf);
});

test('the owner of a key does not depend on the order the members are given in', () => {
  const one = new HashRing(['ring-a', 'ring-b', 'ring-c']);
  const two = new HashRing(['ring-c', 'ring-a', 'ring-b']);
  for (const key of KEYS.slice(0, 1000)) assert.equal(one.owner(key), two.owner(key));
});

test('an empty ring owns nothing; a ring of one owns everything', () => {
  assert.equal(new HashRing([]).owner('x'), undefined);
  const single = new HashRing(['only']);
  assert.ok(KEYS.slice(0, 100).every((key) => single.owner(key) === 'only'));
});

for (const count of [2, 3, 5]) {
  test(`${count} members: each share within ±20% of fair with ${VIRTUAL_NODES} virtual nodes`, () => {
    const members = Array.from({ length: count }, (_, i) => `ring-${i.toString(16).padStart(10, '0')}`);
    const counts = shares(new HashRing(members), KEYS);
    const fair = KEYS.length / count;
    for (const member of members) {
      const share = counts.get(member) ?? 0;
      assert.ok(Math.abs(share - fair) <= fair * 0.2, `${member}: ${share} of ${KEYS.length}, fair is ${fair}`);
    }
  });
}

test('one virtual node per member is far from fair: the many points are what evens the shares', () => {
  const members = ['ring-a', 'ring-b', 'ring-c', 'ring-d', 'ring-e'];
  const counts = shares(new HashRing(members, 1), KEYS);
  const fair = KEYS.length / members.length;
  assert.ok(members.some((m) => Math.abs((counts.get(m) ?? 0) - fair) > fair * 0.2), JSON.stringify([...counts]));
});

test('a joining member takes keys from the others only, about its fair share; nothing moves between them', () => {
  const before = new HashRing(['ring-a', 'ring-b', 'ring-c']);
  const after = new HashRing(['ring-a', 'ring-b', 'ring-c', 'ring-d']);
  let moved = 0;
  for (const key of KEYS) {
    const was = before.owner(key), is = after.owner(key);
    if (was === is) continue;
    assert.equal(is, 'ring-d', `${key} moved from ${was} to ${is}`);
    moved++;
  }
  assert.ok(Math.abs(moved - KEYS.length / 4) <= KEYS.length / 4 * 0.2, `${moved} keys moved`);
});

test('a leaving member gives only its own keys; the others keep theirs', () => {
  const before = new HashRing(['ring-a', 'ring-b', 'ring-c']);
  const after = new HashRing(['ring-a', 'ring-c']);
  for (const key of KEYS) {
    const was = before.owner(key), is = after.owner(key);
    if (was !== 'ring-b') assert.equal(is, was, `${key} moved from ${was} to ${is}`);
    else assert.notEqual(is, 'ring-b');
  }
});
