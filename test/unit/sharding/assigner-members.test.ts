/**
 * How the assigner judges a member whose Lease is deleted: released first (no holder: a clean
 * stop), it is gone at once; deleted while it has a holder (by hand: its replica lives on and
 * creates it again at its next renewal), it is judged as a Lease not renewed — gone only once it
 * would have expired and is read as absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RingAssigner } from '../../../runtime/sharding/assigner.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { clientOf, deferred, sendJson, startServer, status } from '../kube/fake-server.ts';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/ns/leases';

function lease(name: string, version: number, holder: string | undefined, duration: number): object {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(version) },
    spec: { holderIdentity: holder, leaseDurationSeconds: duration },
  };
}

test('a Lease deleted with its holder is a member until it would have expired; a released one goes at once', async (
  t,
) => {
  // The Leases the server holds; each read of one is a renewal (a new version).
  const held = new Map([['m1', 3600], ['m2', 1]]);
  let version = 10;
  const watch = deferred<ServerResponse>();
  const server = await startServer((req, res) => {
    if (req.path === LEASES && req.query.get('watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
      return watch.resolve(res);
    }
    if (req.path === LEASES) {
      const items = [...held].map(([name, duration]) => lease(name, ++version, name, duration));
      return sendJson(res, 200, { kind: 'LeaseList', metadata: { resourceVersion: String(version) }, items });
    }
    const name = req.path.slice(LEASES.length + 1);
    const duration = held.get(name);
    if (duration === undefined) return sendJson(res, 404, status(404, 'NotFound', `leases "${name}" not found`));
    sendJson(res, 200, lease(name, ++version, name, duration));
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const assigner = new RingAssigner({
    client, namespace: 'ns', standby: new ToggleSet(),
    settings: { ring: 'r', namespace: 'ns', leaseDuration: 15, renewDeadline: 10, retryPeriod: 0.05 },
    logger: new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] })),
  });
  const stop = new AbortController();
  const running = assigner.run(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
    client.close();
    await server.close();
  });
  const ring = (members: string) => capture.waitFor(`The ring 'r' has ${members}.`, { timeout: 30 });
  await ring('2 member(s): m1, m2');
  const stream = await watch.promise;
  const event = (type: string, body: object) => stream.write(JSON.stringify({ type, object: body }) + '\n');

  // Deleted by hand, its holder still in it: a member yet (seen with the next change of the ring).
  held.delete('m2');
  event('DELETED', lease('m2', ++version, 'm2', 1));
  held.set('m3', 3600);
  event('ADDED', lease('m3', ++version, 'm3', 3600));
  await ring('3 member(s): m1, m2, m3');
  // Not back when it would have expired: read as absent, and gone.
  await ring('2 member(s): m1, m3');

  // Released, then deleted (a clean stop): gone at once.
  event('MODIFIED', lease('m3', ++version, undefined, 3600));
  held.delete('m3');
  event('DELETED', lease('m3', ++version, undefined, 3600));
  await ring('1 member(s): m1');
  assert.deepEqual([...assigner.members], ['m1']);
});
