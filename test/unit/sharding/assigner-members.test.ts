/**
 * How the assigner judges the ring's members: only a Lease sealed by a replica of the ring is a
 * member (a Lease with the ring's label written by anyone else is none, whatever it says); a member
 * is judged by `settings.sharding.leaseDuration` and its sealed renewals, never by the Lease's own
 * duration, and an old renewal put back is no renewal; a Lease deleted is out of the ring at once,
 * and one released by its own process (sealed, no holder) too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RingAssigner } from '../../../runtime/sharding/assigner.ts';
import { RingSeals } from '../../../runtime/sharding/seals.ts';
import { LEASE_SEAL_ANNOTATION, RING_LABEL } from '../../../runtime/sharding/ring-labels.ts';
import { microTime } from '../../../runtime/structs/builtins.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { clientOf, deferred, sendJson, startServer, status } from '../kube/fake-server.ts';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/ns/leases';
const seals = new RingSeals('r', Buffer.alloc(32, 9));
const FOREVER = 2_000_000_000;

interface State { holder: string | undefined; renewTime: string; sealed: boolean }

function lease(name: string, version: number, state: State): object {
  const { holder, renewTime, sealed } = state;
  const seal = seals.sealLease({ member: name, holder: holder ?? '', renewTime, incarnation: `inc-${name}` });
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: {
      name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(version), labels: { [RING_LABEL]: 'r' },
      annotations: sealed ? { [LEASE_SEAL_ANNOTATION]: seal } : {},
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: FOREVER, renewTime },
  };
}

/**
 * An assigner against a fake API server holding `held` Leases: a Lease in `renewed` is renewed by
 * every read of it (a living member); the others stay as they are. Events come by `event()`.
 */
async function assignerOf(t: { after: (fn: () => Promise<void>) => void }, leaseDuration: number) {
  const held = new Map<string, State>();
  const renewed = new Set<string>();
  let version = 10;
  const watch = deferred<ServerResponse>();
  const server = await startServer((req, res) => {
    if (req.path === LEASES && req.query.get('watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
      return watch.resolve(res);
    }
    if (req.path === LEASES) {
      const items = [...held].map(([name, state]) => lease(name, ++version, state));
      return sendJson(res, 200, { kind: 'LeaseList', metadata: { resourceVersion: String(version) }, items });
    }
    const name = req.path.slice(LEASES.length + 1);
    const state = held.get(name);
    if (!state) return sendJson(res, 404, status(404, 'NotFound', `leases "${name}" not found`));
    if (renewed.has(name)) state.renewTime = microTime(Date.now());
    sendJson(res, 200, lease(name, ++version, state));
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const assigner = new RingAssigner({
    client, namespace: 'ns', standby: new ToggleSet(), seals,
    settings: { ring: 'r', namespace: 'ns', leaseDuration, renewDeadline: leaseDuration / 2, retryPeriod: 0.05 },
    logger: new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] })),
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  t.after(async () => {
    stop.abort();
    await running;
    client.close();
    await server.close();
  });
  const start = async () => {
    running = assigner.run(stop.signal);
    const stream = await watch.promise;
    return (type: string, name: string, state: State) => {
      stream.write(JSON.stringify({ type, object: lease(name, ++version, state) }) + '\n');
    };
  };
  const ring = (members: string) => capture.waitFor(`The ring 'r' has ${members}.`, { timeout: 30 });
  return { assigner, held, renewed, start, ring, capture };
}

const now = () => microTime(Date.now());

test('a Lease without the ring\'s seal is no member; a member is judged by the settings\' lease duration, '
  + 'not by its Lease\'s, and an old renewal put back is no renewal', async (t) => {
  const { assigner, held, renewed, start, ring, capture } = await assignerOf(t, 1);
  held.set('m1', { holder: 'one', renewTime: now(), sealed: true });
  renewed.add('m1');
  held.set('m2', { holder: 'two', renewTime: now(), sealed: true }); // never renewed again
  held.set('fake', { holder: 'anyone', renewTime: now(), sealed: false });
  const event = await start();
  await ring('2 member(s): m1, m2');
  await capture.waitFor(/^The lease 'ns\/fake' has the ring's label but not the ring's seal/, { timeout: 30 });
  // m2's Lease says it is valid for 2,000,000,000 s; by the settings, it expired after 1 s without a renewal.
  await ring('1 member(s): m1');
  // Its last sealed renewal written again (a new resourceVersion, the same renewal): still gone.
  event('MODIFIED', 'm2', held.get('m2')!);
  event('ADDED', 'm3', { holder: 'three', renewTime: now(), sealed: true });
  await ring('2 member(s): m1, m3');
  assert.deepEqual([...assigner.members].sort(), ['m1', 'm3']);
});

test('a member\'s Lease deleted is out of the ring at once; released by its process, gone at once', async (t) => {
  const { assigner, held, renewed, start, ring } = await assignerOf(t, 3600);
  for (const name of ['m1', 'm2', 'm3']) {
    held.set(name, { holder: name, renewTime: now(), sealed: true });
    renewed.add(name);
  }
  const event = await start();
  await ring('3 member(s): m1, m2, m3');
  // Deleted by hand, its holder still in it: nothing more is placed on it, at once (not in an hour).
  held.delete('m2');
  event('DELETED', 'm2', { holder: 'm2', renewTime: now(), sealed: true });
  await ring('2 member(s): m1, m3');
  // Released by its own process (sealed, no holder): gone at once.
  event('MODIFIED', 'm3', { holder: undefined, renewTime: now(), sealed: true });
  await ring('1 member(s): m1');
  // A release not sealed by the ring (anyone's write): no release.
  event('ADDED', 'm4', { holder: 'm4', renewTime: now(), sealed: true });
  await ring('2 member(s): m1, m4');
  event('MODIFIED', 'm4', { holder: undefined, renewTime: now(), sealed: false });
  event('ADDED', 'm5', { holder: 'm5', renewTime: now(), sealed: true });
  await ring('3 member(s): m1, m4, m5');
  assert.deepEqual([...assigner.members].sort(), ['m1', 'm4', 'm5']);
});
