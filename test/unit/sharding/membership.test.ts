/**
 * A member that could not renew its Lease in time pauses; once the API server answers again, it
 * renews and resumes — each attempt after the deadline is given time of its own to succeed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RingMembership } from '../../../runtime/sharding/membership.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { clientOf, sendJson, startServer, status } from '../kube/fake-server.ts';

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
    client, namespace: 'ns', member: 'm', identity: 'replica-1', paused: pauses,
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
