/**
 * How the assigner places objects by the ring's seals, against a fake API server, with one living
 * member: an object with no label is assigned with a seal; a label without a seal naming the living
 * member is drained (never taken for an assignment); a label naming no member is assigned anew; a
 * sealed assignment stays; a sealed object relabelled by someone else is put back, seal and all;
 * a sealed release is assigned anew with a newer sequence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RingAssigner } from '../../../runtime/sharding/assigner.ts';
import type { Assignment } from '../../../runtime/sharding/seals.ts';
import { drainLabel, sealAnnotation, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { INCARNATION, LEASES, MEMBER, OBJECTS, RING, member, seals } from './ring-fixture.ts';
import { clientOf, deferred, sendJson, startServer } from '../kube/fake-server.ts';

const SHARD = shardLabel(RING), DRAIN = drainLabel(RING), SEAL = sealAnnotation(RING);

function object(name: string, version: number, label?: string, sealed?: Assignment): object {
  const uid = `uid-${name}`;
  return {
    apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
    metadata: {
      name, namespace: 'ns', uid, resourceVersion: String(version), labels: label ? { [SHARD]: label } : {},
      annotations: sealed ? { [SEAL]: seals.sealAssignment(uid, sealed) } : {},
    },
  };
}

type Patch = { metadata: { labels: Record<string, string | null>; annotations?: Record<string, string> } };

test('the assigner places by seals: assigns, drains the unsealed, puts a relabel back, assigns a release anew',
  { timeout: 30_000 }, async (t) => {
    const assigned: Assignment = { state: 'assigned', member: MEMBER, incarnation: INCARNATION, sequence: 5 };
    const released: Assignment = { ...assigned, state: 'released' };
    const initial = [
      object('new', 1), object('unsealed', 2, MEMBER), object('nobody', 3, 'gone'),
      object('sealed', 4, MEMBER, assigned), object('released', 5, undefined, released),
    ];
    let version = 100;
    const patches = new Map<string, Patch>();
    /** A promise per object, resolved at its first patch. */
    const written = new Map<string, ReturnType<typeof deferred<void>>>();
    const writeOf = (name: string) => written.get(name) ?? written.set(name, deferred<void>()).get(name)!;
    const objectsWatch = deferred<ServerResponse>();
    const server = await startServer((req, res) => {
      if (req.query.get('watch')) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
        if (req.path === OBJECTS) objectsWatch.resolve(res);
        return;
      }
      if (req.path === LEASES) {
        return sendJson(res, 200, { kind: 'LeaseList', metadata: { resourceVersion: '10' }, items: [member(10)] });
      }
      if (req.path === `${LEASES}/${MEMBER}`) return sendJson(res, 200, member(++version));
      if (req.path === OBJECTS) {
        return sendJson(res, 200, { kind: 'KopfExampleList', metadata: { resourceVersion: '50' }, items: initial });
      }
      const name = req.path.slice(OBJECTS.length + 1);
      patches.set(name, JSON.parse(req.body) as Patch);
      writeOf(name).resolve();
      sendJson(res, 200, object(name, ++version));
    });
    const client = clientOf(server);
    const assigner = new RingAssigner({
      client, namespace: 'ns', standby: new ToggleSet(), seals,
      settings: { ring: RING, namespace: 'ns', leaseDuration: 3600, renewDeadline: 10, retryPeriod: 0.05 },
      logger: new Logger(new LogConfig({ sinks: [] })),
    });
    const stop = new AbortController();
    const running = [assigner.run(stop.signal), assigner.watcher(KopfExample)('ns', stop.signal)];
    t.after(async () => {
      stop.abort();
      await Promise.allSettled(running);
      client.close();
      await server.close();
    });
    await Promise.all(['new', 'unsealed', 'nobody', 'released'].map((name) => writeOf(name).promise));
    const sealOf = (name: string) => {
      return seals.openAssignment(`uid-${name}`, patches.get(name)?.metadata.annotations?.[SEAL]);
    };

    // No label: assigned, sealed for the member's incarnation.
    assert.equal(patches.get('new')?.metadata.labels[SHARD], MEMBER);
    assert.deepEqual({ ...sealOf('new'), sequence: 0 }, { ...assigned, sequence: 0 });
    // A label without a seal, naming the living member: drained, not taken for an assignment.
    assert.deepEqual(patches.get('unsealed'), { metadata: { resourceVersion: '2', labels: { [DRAIN]: 'true' } } });
    // A label naming no member: assigned anew.
    assert.equal(sealOf('nobody')?.member, MEMBER);
    // A sealed release: assigned anew with a newer sequence; a sealed assignment where the ring wants it: left.
    assert.ok(sealOf('released')!.sequence > released.sequence);
    assert.equal(patches.has('sealed'), false);

    // Someone relabels the sealed object: put back as the ring sealed it.
    const watch = await objectsWatch.promise;
    const relabelled = object('sealed', 60, 'm-other', assigned);
    watch.write(JSON.stringify({ type: 'MODIFIED', object: relabelled }) + '\n');
    await writeOf('sealed').promise;
    assert.equal(patches.get('sealed')?.metadata.labels[SHARD], MEMBER);
    assert.deepEqual(sealOf('sealed'), assigned);
  });
