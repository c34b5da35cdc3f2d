/**
 * Reconcilers (`on.reconcile`) end to end on a real control plane: what queues a run (the object's
 * change, an owned child's, a watched object's through its mapping, the resync, `requeueAfter`),
 * the retries (backoff, `TemporaryError`, `PermanentError`), one run at a time with Kopf's handlers
 * of the object, the latest state, coexistence with Kopf's stored progress, and the finalizer mode.
 * Everything awaited is an event: a reconciler's run (a journal), a log line, or an object's state
 * seen by a watch — never a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { ConfigMaps, Secrets } from '../../../runtime/structs/builtins.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { FINALIZER } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();

/** What reconcilers and handlers did, in order; a test awaits entries instead of time. */
class Journal {
  readonly entries: string[] = [];
  private readonly waiters = new Set<() => void>();
  add(entry: string): void {
    this.entries.push(entry);
    for (const waiter of [...this.waiters]) waiter();
  }
  count(entry: string): number { return this.entries.filter((e) => e === entry).length; }
  /** Resolves when `entry` has been added `count` times; rejects after `timeout` seconds. */
  until(entry: string, count = 1, timeout = 60): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => { if (this.count(entry) >= count) { done(); resolve(); } };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${count}× '${entry}' within ${timeout} s; journal: ${JSON.stringify(this.entries)}`));
      }, timeout * 1000);
      const done = () => { clearTimeout(timer); this.waiters.delete(check); };
      this.waiters.add(check);
      check();
    });
  }
}

/** A gate a reconciler waits at until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

const ref = (name: string) => ({ namespace: 'default', name });
const watcher = () => new Cluster(cluster.cp.kubeconfigPath);

async function create(name: string, field = 'a'): Promise<KubeObject> {
  return createObject(cluster.client, KopfExample, { metadata: { name, namespace: 'default' }, spec: { field } });
}

async function setField(name: string, field: string): Promise<void> {
  await patchObject(cluster.client, KopfExample, ref(name), { spec: { field } });
}

function cleanup(t: { after: (fn: () => Promise<unknown>) => void }, name: string): void {
  t.after(() => deleteObject(cluster.client, KopfExample, ref(name)).catch(() => undefined));
}

test('a change of the object reconciles it with its latest state; its patch is applied', async (t) => {
  cleanup(t, 'r1');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function reconcile_fn({ spec, patch }) {
    journal.add(`field=${spec.field}`);
    patch.status.seen = spec.field;
  });
  const observer = watcher();
  t.after(() => observer.client.close());
  await withOperator(cluster, registry, async () => {
    await create('r1');
    await journal.until('field=a');
    await observer.waitFor(KopfExample, ref('r1'), (o) => o?.status?.seen === 'a');
    await setField('r1', 'b');
    await journal.until('field=b');
    await observer.waitFor(KopfExample, ref('r1'), (o) => o?.status?.seen === 'b');
  });
});
