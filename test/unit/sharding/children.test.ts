/**
 * How the assigner keeps the owned children's labels equal to their owners' members, against a fake
 * API server, with one living member: a child labelled as its owner costs no write; one unlabelled or
 * labelled for another member is relabelled, guarded by its resourceVersion; one without a
 * controller, or whose controller is not a served object, is left alone; the children of an owner
 * about to be assigned are relabelled for its member before the owner's assignment is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RingAssigner } from '../../../runtime/sharding/assigner.ts';
import type { Assignment } from '../../../runtime/sharding/seals.ts';
import { sealAnnotation, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import { controllerOf } from '../../../runtime/sharding/decisions.ts';
import { ConfigMaps } from '../../../runtime/structs/builtins.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { INCARNATION, LEASES, MEMBER, OBJECTS, RING, member, seals } from './ring-fixture.ts';
import { clientOf, deferred, sendJson, startServer } from '../kube/fake-server.ts';

const CHILDREN = '/api/v1/namespaces/ns/configmaps';
const SHARD = shardLabel(RING), SEAL = sealAnnotation(RING);

function owner(name: string, sealed: Assignment): object {
  const uid = `uid-${name}`;
  const labels = sealed.state === 'assigned' ? { [SHARD]: sealed.member } : {};
  return {
    apiVersion: 'kopf.dev/v1', kind: 'KopfExample',
    metadata: {
      name, namespace: 'ns', uid, resourceVersion: '1', labels,
      annotations: { [SEAL]: seals.sealAssignment(uid, sealed) },
    },
  };
}

function child(name: string, version: number, controller?: string, label?: string): object {
  const ownerReferences = controller === undefined ? [] : [
    { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: controller, uid: `uid-${controller}`, controller: true },
  ];
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(version), ownerReferences,
      labels: label ? { [SHARD]: label } : {},
    },
  };
}

type Patch = { metadata: { resourceVersion?: string; labels: Record<string, string | null> } };

test('the children follow their owners: relabelled only where they differ, before their owner is assigned',
  { timeout: 30_000 }, async (t) => {
    const assigned: Assignment = { state: 'assigned', member: MEMBER, incarnation: INCARNATION, sequence: 5 };
    const released: Assignment = { ...assigned, state: 'released' };
    const owners = [owner('held', assigned), owner('moving', released)];
    const children = [
      child('same', 11, 'held', MEMBER), child('bare', 12, 'held'), child('elsewhere', 13, 'held', 'm-old'),
      child('left', 14, 'moving', 'm-old'), child('orphan', 15), child('stranger', 16, 'unknown', 'm-old'),
    ];
    let version = 100;
    const patches = new Map<string, Patch>();
    /** The paths patched, in order. */
    const order: string[] = [];
    const written = new Map<string, ReturnType<typeof deferred<void>>>();
    const writeOf = (name: string) => written.get(name) ?? written.set(name, deferred<void>()).get(name)!;
    const server = await startServer((req, res) => {
      if (req.query.get('watch')) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
        return;
      }
      if (req.path === LEASES) {
        return sendJson(res, 200, { kind: 'LeaseList', metadata: { resourceVersion: '10' }, items: [member(10)] });
      }
      if (req.path === `${LEASES}/${MEMBER}`) return sendJson(res, 200, member(++version));
      if (req.path === OBJECTS) {
        return sendJson(res, 200, { kind: 'KopfExampleList', metadata: { resourceVersion: '50' }, items: owners });
      }
      if (req.path === CHILDREN) {
        return sendJson(res, 200, { kind: 'ConfigMapList', metadata: { resourceVersion: '50' }, items: children });
      }
      const name = req.path.slice(req.path.lastIndexOf('/') + 1);
      order.push(name);
      patches.set(name, JSON.parse(req.body) as Patch);
      writeOf(name).resolve();
      const body = req.path.startsWith(CHILDREN) ? child(name, ++version) : owner(name, assigned);
      sendJson(res, 200, body);
    });
    const client = clientOf(server);
    const assigner = new RingAssigner({
      client, namespace: 'ns', standby: new ToggleSet(), seals,
      settings: { ring: RING, namespace: 'ns', leaseDuration: 3600, renewDeadline: 10, retryPeriod: 0.05 },
      logger: new Logger(new LogConfig({ sinks: [] })),
    });
    const stop = new AbortController();
    // The children are listed before their owners: nothing is decided for a child whose owner is not known yet.
    const childrenWatch = assigner.childrenWatcher(ConfigMaps)('ns', stop.signal);
    const running = [assigner.run(stop.signal), childrenWatch, assigner.watcher(KopfExample)('ns', stop.signal)];
    t.after(async () => {
      stop.abort();
      await Promise.allSettled(running);
      client.close();
      await server.close();
    });
    await Promise.all(['bare', 'elsewhere', 'left', 'moving'].map((name) => writeOf(name).promise));

    assert.deepEqual(patches.get('bare'), { metadata: { resourceVersion: '12', labels: { [SHARD]: MEMBER } } });
    assert.deepEqual(patches.get('elsewhere'), { metadata: { resourceVersion: '13', labels: { [SHARD]: MEMBER } } });
    assert.deepEqual(patches.get('left'), { metadata: { resourceVersion: '14', labels: { [SHARD]: MEMBER } } });
    assert.ok(order.indexOf('left') < order.indexOf('moving'), `written in the order ${order.join(', ')}`);
    for (const name of ['same', 'orphan', 'stranger']) assert.equal(patches.has(name), false, name);
  });

test('a child\'s controller is its owner reference with controller: true, and a uid', () => {
  const reference = { apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u1' };
  const of = (ownerReferences: unknown) => controllerOf({ metadata: { ownerReferences: ownerReferences as never } });
  assert.equal(of([reference, { ...reference, uid: 'u2', controller: true }]), 'u2');
  assert.equal(of([{ ...reference, controller: false }]), undefined);
  assert.equal(of([{ ...reference, uid: '', controller: true }]), undefined);
  assert.equal(of('hostile'), undefined);
  assert.equal(controllerOf({}), undefined);
});
