/**
 * A member that could not renew its Lease in time pauses; once the API server answers again, it
 * renews and resumes — each attempt after the deadline is given time of its own to succeed. A Lease
 * deleted by someone else is created again; a clean stop releases it before it deletes it. Each
 * write is sealed with the ring's key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RingMembership } from '../../../runtime/sharding/membership.ts';
import { RingSeals } from '../../../runtime/sharding/seals.ts';
import { LEASE_SEAL_ANNOTATION } from '../../../runtime/sharding/ring-labels.ts';

const seals = new RingSeals('r', Buffer.alloc(32, 3));
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { clientOf, deferred, sendJson, startServer, status } from '../kube/fake-server.ts';

/** What the fake API server's answers take: as a real server's over a network, never instant. */
const LATENCY_MS = 40;

test('a member paused past its renew deadline renews and resumes once the server answers again', async (t) => {
  let lease: Record<string, unknown> | undefined;
  let version = 0;
  let stalled = false;
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse, code: number, body: unknown) => {
    setTimeout(() => { if (!res.writableEnded) sendJson(res, code, body); }, LATENCY_MS);
  };
  const server = await startServer((req, res) => {
    if (stalled) { held.push(res); return; }
    if (req.method === 'GET') {
      if (lease) answer(res, 200, lease);
      else answer(res, 404, status(404, 'NotFound', 'leases "m" not found'));
      return;
    }
    const body = JSON.parse(req.body) as { metadata: Record<string, unknown> };
    lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } };
    answer(res, req.method === 'POST' ? 201 : 200, lease);
  });
  const client = clientOf(server);
  const pauses = new ToggleSet();
  const membership = new RingMembership({
    client, namespace: 'ns', member: 'm', identity: 'replica-1', paused: pauses, seals,
    settings: { ring: 'r', namespace: 'ns', leaseDuration: 3, renewDeadline: 0.3, retryPeriod: 0.05 },
    logger: new Logger(new LogConfig({ sinks: [] })),
  });
  t.after(async () => {
    await membership.stop();
    client.close();
    await server.close();
  });
  membership.start();
  assert.ok(await pauses.wait(false, AbortSignal.timeout(10_000)), 'joined the ring');
  stalled = true;
  assert.ok(await pauses.wait(true, AbortSignal.timeout(10_000)), 'paused once the deadline passed');
  stalled = false;
  for (const res of held.splice(0)) res.destroy();
  assert.ok(await pauses.wait(false, AbortSignal.timeout(10_000)), 'renewed and resumed');
  assert.equal(membership.member, true);
});

test('a Lease deleted by someone else is created again; a clean stop releases the Lease, then deletes it', async (
  t,
) => {
  let lease: { metadata: Record<string, unknown>; spec?: Record<string, unknown> } | undefined;
  let version = 0;
  const writes: string[] = [];
  /** Whether each write carried the ring's seal of its holder and renewal time, by one incarnation. */
  const sealedStates: (string | undefined)[] = [];
  const sealed = (written: NonNullable<typeof lease>) => seals.openLease({
    member: 'm', holder: String(written.spec?.holderIdentity ?? ''), renewTime: String(written.spec?.renewTime ?? ''),
  }, (written.metadata.annotations as Record<string, string> | undefined)?.[LEASE_SEAL_ANNOTATION]);
  const recreated = deferred();
  const server = await startServer((req, res) => {
    if (req.method === 'GET') {
      if (lease) sendJson(res, 200, lease);
      else sendJson(res, 404, status(404, 'NotFound', 'leases "m" not found'));
      return;
    }
    if (req.method === 'DELETE') {
      writes.push(`DELETE holder=${String(lease?.spec?.holderIdentity)}`);
      lease = undefined;
      return sendJson(res, 200, status(200, 'Success', ''));
    }
    const body = JSON.parse(req.body) as NonNullable<typeof lease>;
    lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } };
    writes.push(`${req.method} holder=${String(lease.spec?.holderIdentity)}`);
    sealedStates.push(sealed(lease));
    sendJson(res, req.method === 'POST' ? 201 : 200, lease);
    if (req.method === 'POST' && version > 1) recreated.resolve();
  });
  const client = clientOf(server);
  t.after(async () => {
    client.close();
    await server.close();
  });
  const capture = captureLogs();
  const pauses = new ToggleSet();
  const membership = new RingMembership({
    client, namespace: 'ns', member: 'm', identity: 'replica-1', paused: pauses, seals,
    settings: { ring: 'r', namespace: 'ns', leaseDuration: 3, renewDeadline: 1, retryPeriod: 0.05 },
    logger: new Logger(new LogConfig({ sinks: [capture.sink] })),
  });
  t.after(() => membership.stop()); // also when an assertion fails; a second stop is harmless
  membership.start();
  assert.ok(await pauses.wait(false, AbortSignal.timeout(10_000)), 'joined the ring');
  lease = undefined; // deleted by hand
  const warned = 'The ring\'s lease \'ns/m\' was deleted, not by this replica: it is created again.';
  await recreated.promise;
  assert.ok(capture.messages().includes(warned), capture.messages().join('\n'));
  assert.equal(membership.member, true);
  await membership.stop();
  assert.deepEqual(writes.filter((w) => !w.startsWith('PUT holder=replica-1')), [
    'POST holder=replica-1', 'POST holder=replica-1', 'PUT holder=undefined', 'DELETE holder=undefined',
  ]);
  // Every write, the release too, is sealed for this process's incarnation: the assigner knows it from a forged one.
  assert.deepEqual(new Set(sealedStates), new Set([membership.incarnation]));
});
