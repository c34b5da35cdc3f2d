/**
 * The ring's metrics on a real control plane, with two replicas embedded in the test's process:
 * the members each replica sees, the objects each member holds (as the assigner counts them), the
 * moves by reason, and `kopf_leader` for the assigner's Lease (1 on the assigner only).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { Namespaces } from '../../../runtime/structs/builtins.ts';
import { memberName } from '../../../runtime/sharding/ring-labels.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { startOperator } from '../engine/support.ts';
import { scrape, scrapeUntil, total, value } from '../metrics/exposition.ts';

const cluster = useCluster({ crds: [CRD_YAML] });
const RING = 'mring';
const LEASE = { lease: `default/${RING}-assigner` };

function replica(who: string, namespace: string) {
  const settings = defaultSettings({
    posting: { enabled: false },
    sharding: { ring: RING, namespace: 'default', leaseDuration: 3, renewDeadline: 2, retryPeriod: 0.5 },
  });
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { return { by: who }; });
  const identity = `test-${RING}-${who}`;
  const running = startOperator(cluster, registry, {
    namespaces: [namespace], settings, identity, standalone: true, metrics: 'http://127.0.0.1:0/metrics',
  });
  return { ...running, who, member: memberName(RING, identity) };
}

test('a ring counts its members, the objects each holds, its moves by reason, and its assigner', async (t) => {
  const namespace = 'ring-metrics';
  await createObject(cluster.client, Namespaces, { metadata: { name: namespace } });
  const replicas = [replica('a', namespace), replica('b', namespace)];
  t.after(() => Promise.all(replicas.map((r) => r.op.stop())));
  await Promise.all(replicas.map((r) => r.op.ready));
  const full = new RegExp(`^The ring '${RING}' has 2 member\\(s\\)`);
  await Promise.all(replicas.map((r) => r.capture.waitFor(full, { timeout: 60 })));
  const count = 12;
  for (let i = 0; i < count; i++) {
    await createObject(cluster.client, KopfExample, { metadata: { name: `o-${i}`, namespace }, spec: {} });
  }
  const urls = replicas.map((r) => r.op.metricsUrl!);
  // One of the two holds the assigner's Lease; it counts every object, the other none.
  const held = (text: string) => total(text, 'kopf_ring_objects', { ring: RING });
  const known = (text: string) => value(text, 'kopf_leader', LEASE) !== undefined
    && value(text, 'kopf_ring_members', { ring: RING }) === 2;
  const texts = await Promise.all(urls.map((url) => scrapeUntil(url, known)));
  const assigner = texts.findIndex((text) => value(text, 'kopf_leader', LEASE) === 1);
  assert.ok(assigner >= 0, 'no replica is the assigner');
  assert.equal(value(texts[1 - assigner]!, 'kopf_leader', LEASE), 0);
  const text = await scrapeUntil(urls[assigner]!, (text) => held(text) === count);
  const shares = replicas.map((r) => value(text, 'kopf_ring_objects', { ring: RING, member: r.member }) ?? 0);
  assert.ok(shares.every((share) => share > 0), `shares: ${shares.join(', ')}`);
  assert.equal(value(text, 'kopf_ring_moves_total', { ring: RING, reason: 'assign' }), count);
  assert.equal(held(await scrape(urls[1 - assigner]!)), 0, 'a replica that stands by counts no objects');

  // The other replica leaves: its objects fail over to the assigner's replica.
  const leaving = replicas[1 - assigner]!;
  await leaving.op.stop();
  const after = await scrapeUntil(urls[assigner]!, (text) => value(text, 'kopf_ring_members', { ring: RING }) === 1
    && value(text, 'kopf_ring_objects', { ring: RING, member: replicas[assigner]!.member }) === count);
  // A clean stop lets the objects go first: each is placed again once, as a failover, or as an
  // assignment when the assigner places it before it sees the Lease gone.
  const placed = (value(after, 'kopf_ring_moves_total', { ring: RING, reason: 'failover' }) ?? 0)
    + value(after, 'kopf_ring_moves_total', { ring: RING, reason: 'assign' })! - count;
  assert.equal(placed, shares[1 - assigner]);
  assert.equal(value(after, 'kopf_ring_objects', { ring: RING, member: leaving.member }), undefined);
});
