/**
 * A reconciler's reads of its children and related objects on a real control plane: `owned()` and
 * `cache` serve them from the reconciler's own watches, with no LIST or GET of them across many
 * runs — as the API server counts its requests (`apiserver_request_total` on its /metrics) — and
 * a child edited by hand is read edited. Everything awaited is a run (a journal) or an object's
 * state, never a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlreadyExistsError, createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import { adopt } from '../../../runtime/hierarchies/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { ConfigMaps, Secrets } from '../../../runtime/structs/builtins.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { requestCounts, delta } from '../metrics.ts';
import { examplesOf } from './kopfexamples.ts';
import { Journal } from './journal.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();
const { ref, create, cleanup } = examplesOf(cluster);

test('owned() and cache read children and related objects with no request; a child edited by hand is read edited',
  async (t) => {
    cleanup(t, 'c1');
    t.after(async () => {
      for (const name of ['c1-0', 'c1-1', 'c1-2']) {
        await deleteObject(cluster.client, ConfigMaps, ref(name)).catch(() => undefined);
      }
      await deleteObject(cluster.client, Secrets, ref('c1-secret')).catch(() => undefined);
    });
    const journal = new Journal();
    const registry = new OperatorRegistry();
    let requeues = 30;
    registry.on.reconcile(KopfExample, async function keep({ body, name, client, owned, cache }) {
      const children = owned(ConfigMaps);
      const secret = cache.get(Secrets, `${name}-secret`, 'default');
      const labelled = cache.list(Secrets, { namespace: 'default', labelSelector: `widget=${name}` });
      for (const index of [0, 1, 2]) {
        if (children.some((child) => child.metadata?.name === `${name}-${index}`)) continue;
        const child = { metadata: { name: `${name}-${index}`, namespace: 'default' }, data: { v: 'made' } };
        await client.create(ConfigMaps, adopt(child, body)).catch((error: unknown) => {
          if (!(error instanceof AlreadyExistsError)) throw error;
        });
      }
      const values = children.map((child) => `${child.metadata?.name}=${child.data?.v}`).sort().join(',');
      journal.add(`run ${values} secret=${secret?.data?.k ?? '-'} labelled=${labelled.length}`);
      return requeues-- > 0 ? { requeueAfter: 0.01 } : undefined;
    }, {
      owns: [ConfigMaps],
      watches: [{
        resource: Secrets, map: (secret) => [{ namespace: 'default', name: secret.metadata.labels?.widget }],
      }],
      when: ({ name }) => name === 'c1',
    });
    await withOperator(cluster, registry, async () => {
      await create('c1');
      await journal.until('run c1-0=made,c1-1=made,c1-2=made secret=- labelled=0');
      const before = await Promise.all(['configmaps', 'secrets'].map((r) => requestCounts(cluster.cp.credentials, r)));
      const runs = journal.entries.length;
      requeues = 30;
      await createObject(cluster.client, Secrets, {
        metadata: { name: 'c1-secret', namespace: 'default', labels: { widget: 'c1' } }, data: { k: 'dmFsdWU=' },
      });
      await patchObject(cluster.client, ConfigMaps, ref('c1-1'), { data: { v: 'edited' } });
      await journal.until('run c1-0=made,c1-1=edited,c1-2=made secret=dmFsdWU= labelled=1');
      await journal.until(journal.entries.at(-1)!, journal.count(journal.entries.at(-1)!) + 10);
      const after = await Promise.all(['configmaps', 'secrets'].map((r) => requestCounts(cluster.cp.credentials, r)));
      assert.ok(journal.entries.length - runs >= 10, `${journal.entries.length - runs} runs`);
      for (const [i, resource] of ['configmaps', 'secrets'].entries()) {
        const { total } = delta(before[i]!, after[i]!, ['LIST', 'GET']);
        assert.equal(total, 0, `${resource}: ${total} LIST/GET across ${journal.entries.length - runs} runs`);
      }
    });
  });
