import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describePeers,
  isDead,
  isoformat,
  ownRecord,
  parseIsoTime,
  parsePeers,
} from '../../../runtime/peering/peers.ts';
import { keepAliveInterval } from '../../../runtime/peering/keepalive.ts';
import { detectOwnIdentity } from '../../../runtime/peering/identity.ts';

const NOW = Date.parse('2026-11-25T14:20:00.250Z');

test('times are written as Python writes them, and read with any precision and offset', () => {
  assert.equal(isoformat(NOW, 250_000), '2026-11-25T14:20:00.250000+00:00');
  assert.equal(isoformat(Date.parse('2026-11-25T14:20:00Z'), 0), '2026-11-25T14:20:00+00:00');
  assert.deepEqual(
    parseIsoTime('2026-11-25T14:20:00.123456+00:00'),
    { ms: Date.parse('2026-11-25T14:20:00.123Z'), micros: 123_456 },
  );
  assert.deepEqual(parseIsoTime('2026-11-25T16:20:00+02:00'), { ms: Date.parse('2026-11-25T14:20:00Z'), micros: 0 });
  assert.deepEqual(
    parseIsoTime('2026-11-25T14:20:00.5Z'),
    { ms: Date.parse('2026-11-25T14:20:00.500Z'), micros: 500_000 },
  );
  assert.equal(parseIsoTime('yesterday'), undefined);
});

test('a record written by us reads back as the same peer', () => {
  const record = ownRecord(10, 60, NOW)!;
  assert.deepEqual(record, { priority: 10, lifetime: 60, lastseen: '2026-11-25T14:20:00.250000+00:00' });
  const [peer] = parsePeers({ me: record }, NOW);
  assert.equal(peer!.identity, 'me');
  assert.equal(peer!.deadline, NOW + 60_000);
  assert.equal(ownRecord(10, 0, NOW), null, 'a zero lifetime deletes the record');
});

test('peers are dead once their lifetime has passed; a missing lifetime is 60 s', () => {
  const peers = parsePeers({
    fresh: { priority: 0, lifetime: 10, lastseen: '2026-11-25T14:19:55+00:00' },
    stale: { priority: 0, lifetime: 10, lastseen: '2026-11-25T14:19:40+00:00' },
    defaulted: { priority: 0, lastseen: '2026-11-25T14:19:10+00:00' },
    deleting: null,
  }, NOW);
  assert.deepEqual(
    peers.map((p) => [p.identity, isDead(p, NOW)]),
    [['fresh', false], ['stale', true], ['defaulted', false]],
  );
});

test('peers are described as Kopf logs them', () => {
  const peers = parsePeers(
    { 'op@host/1/abc': { priority: 666, lifetime: 60, lastseen: '2026-11-25T14:19:55.000100+00:00' } },
    NOW,
  );
  assert.equal(
    describePeers(peers),
    "[<Peer op@host/1/abc: priority=666, lifetime=60, lastseen='2026-11-25T14:19:55.000100+00:00'>]",
  );
});

test('keep-alives come a few seconds before the record expires, never more often than each second', () => {
  assert.equal(keepAliveInterval(60, () => 0), 55);
  assert.equal(keepAliveInterval(60, () => 0.999), 50);
  assert.equal(keepAliveInterval(3, () => 0.5), 1);
});

test('the identity is the pod name when given, else user@host with a start time and a random tail', () => {
  assert.equal(detectOwnIdentity({ env: { POD_ID: 'op-7f9c' } }), 'op-7f9c');
  const auto = detectOwnIdentity({ env: {}, now: new Date(NOW) });
  assert.match(auto, /^[^@]+@[^/]+\/20261125142000\/[a-z0-9]{3}$/);
  assert.equal(detectOwnIdentity({ env: {}, manual: true }), auto.split('/')[0]);
});
