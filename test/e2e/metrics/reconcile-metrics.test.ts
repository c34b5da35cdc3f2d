/**
 * `kopf_reconcile_requests_total{resource,trigger}` on a real control plane: each of the six
 * triggers is counted by what queued the run, and every run is counted once (the counters add up
 * to the runs the reconciler saw).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlreadyExistsError, createObject, deleteObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { adopt } from '../../../runtime/hierarchies/index.ts';
import { ConfigMaps, Secrets } from '../../../runtime/structs/builtins.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from '../engine/support.ts';
import { samples, scrapeUntil, total, value } from './exposition.ts';

const cluster = useCluster({ crds: [CRD_YAML] });
const RESOURCE = 'kopfexamples.v1.kopf.dev';
const TRIGGERS = ['change', 'owned', 'watched', 'resync', 'requeue', 'retry'];
const ref = (name: string) => ({ namespace: 'default', name });

test('reconciler runs are counted by what queued them, each run once', async (t) => {
  const names = ['rm-owned', 'rm-retry', 'rm-requeue', 'rm-watched'];
  t.after(async () => {
    for (const name of names) await deleteObject(cluster.client, KopfExample, ref(name)).catch(() => undefined);
    await deleteObject(cluster.client, Secrets, ref('rm-secret')).catch(() => undefined);
  });
  let runs = 0;
  let open = true; // closed at the end: pending requests find the objects not due, and are not counted
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, async function counted({ body, name, retry, client }) {
    runs++;
    if (name === 'rm-retry' && retry === 0) throw new Error('once');
    if (name === 'rm-requeue' && runs < 50) return { requeueAfter: 0.05 };
    if (name === 'rm-owned') {
      const child = adopt({ metadata: { name: 'rm-owned-child', namespace: 'default' }, data: {} }, body);
      await client.create(ConfigMaps, child).catch((error: unknown) => {
        if (!(error instanceof AlreadyExistsError)) throw error;
      });
    }
    return undefined;
  }, {
    owns: [ConfigMaps],
    watches: [{ resource: Secrets, map: (secret) => [{ namespace: 'default', name: secret.metadata.labels?.widget }] }],
    resync: 0.5, when: ({ name }) => open && names.includes(name ?? ''),
  });
  const settings = defaultSettings({ posting: { enabled: false }, reconciling: { backoffBase: 0.05 } });
  const options = { settings, metrics: 'http://127.0.0.1:0/metrics' };
  await withOperator(cluster, registry, options, async ({ op }) => {
    for (const name of names) {
      await createObject(cluster.client, KopfExample, { metadata: { name, namespace: 'default' }, spec: {} });
    }
    await createObject(cluster.client, Secrets, {
      metadata: { name: 'rm-secret', namespace: 'default', labels: { widget: 'rm-watched' } },
    });
    const url = op.metricsUrl!;
    const counted = (text: string, trigger: string) =>
      value(text, 'kopf_reconcile_requests_total', { resource: RESOURCE, trigger }) ?? 0;
    await scrapeUntil(url, (text) => TRIGGERS.every((trigger) => counted(text, trigger) > 0));
    open = false;
    const text = await scrapeUntil(url, (text) => total(text, 'kopf_reconcile_requests_total') === runs);
    const seen = new Set(samples(text).filter((s) => s.name === 'kopf_reconcile_requests_total')
      .map((s) => s.labels.trigger));
    assert.deepEqual([...seen].sort(), [...TRIGGERS].sort());
  });
});
