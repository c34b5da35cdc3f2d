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
import { AlreadyExistsError, createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import { adopt } from '../../../runtime/hierarchies/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { ConfigMaps, Secrets } from '../../../runtime/structs/builtins.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FINALIZER } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { examplesOf } from './kopfexamples.ts';
import { Journal, gate } from './journal.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();

const { ref, create, setField, cleanup, watcher } = examplesOf(cluster);

test('a change of the object reconciles it with its latest state; its patch is applied', async (t) => {
  cleanup(t, 'r1');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function reconcile_fn({ spec, patch }) {
    journal.add(`field=${spec.field}`);
    patch.status.seen = spec.field;
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('r1');
    await journal.until('field=a');
    await observer.waitFor(KopfExample, ref('r1'), (o) => o?.status?.seen === 'a');
    await setField('r1', 'b');
    await journal.until('field=b');
    await observer.waitFor(KopfExample, ref('r1'), (o) => o?.status?.seen === 'b');
  });
});

/** A reconciler that keeps one ConfigMap child per object, journaling each run. */
function keepingChild(registry: OperatorRegistry, journal: Journal): void {
  registry.on.reconcile(KopfExample, async function keep_child({ body, name, client }) {
    journal.add(`run ${name}`);
    const child = { metadata: { name: `${name}-child`, namespace: 'default' }, data: { owner: name } };
    await client.create(ConfigMaps, adopt(child, body)).catch((error: unknown) => {
      if (!(error instanceof AlreadyExistsError)) throw error;
    });
    journal.add(`kept ${name}`);
  }, { owns: [ConfigMaps] });
}

test('a change of an owned child (its controller owner reference) reconciles its owner', async (t) => {
  cleanup(t, 'r2');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  keepingChild(registry, journal);
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('r2');
    await journal.until('kept r2');
    await observer.waitFor(ConfigMaps, ref('r2-child'), (o) => o !== null);
    const runs = journal.count('run r2');
    await deleteObject(cluster.client, ConfigMaps, ref('r2-child'));
    await journal.until('run r2', runs + 1);
    await observer.waitFor(ConfigMaps, ref('r2-child'), (o) => o !== null);
  });
});

test('a change of a watched object reconciles the objects its mapping names', async (t) => {
  cleanup(t, 'r3');
  t.after(() => deleteObject(cluster.client, Secrets, ref('r3-secret')).catch(() => undefined));
  const journal = new Journal();
  const registry = new OperatorRegistry();
  const kinds = new Set<string>();
  registry.on.reconcile(KopfExample, function watching_fn({ name }) { journal.add(`run ${name}`); }, {
    watches: [{
      resource: Secrets, metadataOnly: true,
      map: (secret) => {
        kinds.add(`${secret.apiVersion} ${secret.kind}`);
        return [{ namespace: secret.metadata.namespace, name: secret.metadata.labels?.widget }];
      },
    }],
  });
  await withOperator(cluster, registry, async () => {
    await create('r3');
    await journal.until('run r3');
    // A secret that names no object maps to none; once labelled for r3, its change runs r3 again.
    await createObject(cluster.client, Secrets, { metadata: { name: 'r3-secret', namespace: 'default' } });
    await patchObject(cluster.client, Secrets, ref('r3-secret'), { metadata: { labels: { widget: 'r3' } } });
    await journal.until('run r3', 2);
  });
  assert.deepEqual([...kinds], ['meta.k8s.io/v1 PartialObjectMetadata'], 'watched as metadata only');
});

test('an object is reconciled again after the resync period, with no change', async (t) => {
  cleanup(t, 'r4');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function periodic({ name }) { journal.add(`run ${name}`); }, {
    resync: 0.05, when: ({ name }) => name === 'r4',
  });
  await withOperator(cluster, registry, async () => {
    await create('r4');
    await journal.until('run r4', 3);
  });
});

test('an object is reconciled again after the requeueAfter its reconciler returned', async (t) => {
  cleanup(t, 'r5');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function requeued({ name }) {
    journal.add(`run ${name}`);
    return journal.count(`run ${name}`) < 3 ? { requeueAfter: 0.05 } : undefined;
  }, { resync: 3600, when: ({ name }) => name === 'r5' });
  await withOperator(cluster, registry, async () => {
    await create('r5');
    await journal.until('run r5', 3);
  });
});

test('errors retry with a per-object backoff, reset by a success; TemporaryError sets the delay', async (t) => {
  cleanup(t, 'r6');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  const retries: number[] = [];
  registry.on.reconcile(KopfExample, function flaky({ spec, retry }) {
    retries.push(retry);
    journal.add(`run ${spec.field}`);
    if (spec.field === 'a' && retry < 4) throw new Error(`failure ${retry}`);
    if (spec.field === 'b' && retry < 1) throw new Error('once more');
    if (spec.field === 'b' && retry < 2) throw new TemporaryError('not yet', { delay: 0.07 });
    journal.add(`done ${spec.field}`);
  }, { when: ({ name }) => name === 'r6' });
  const reconciling = { backoffBase: 0.01, backoffCap: 0.04 };
  const settings = defaultSettings({ posting: { enabled: false }, reconciling });
  await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    await create('r6');
    await journal.until('done a');
    await setField('r6', 'b');
    await journal.until('done b');
    const delays = capture.messages().filter((m) => m.startsWith("Reconciler 'flaky' failed"))
      .map((m) => m.replace(/: .*$/, ''));
    assert.deepEqual(delays, [
      "Reconciler 'flaky' failed with an exception; retrying in 0.01 seconds",
      "Reconciler 'flaky' failed with an exception; retrying in 0.02 seconds",
      "Reconciler 'flaky' failed with an exception; retrying in 0.04 seconds",
      "Reconciler 'flaky' failed with an exception; retrying in 0.04 seconds",
      // The success of 'a' reset the backoff: the count starts again, and the delay is the base's.
      "Reconciler 'flaky' failed with an exception; retrying in 0.01 seconds",
      "Reconciler 'flaky' failed temporarily; retrying in 0.07 seconds",
    ]);
  });
  assert.deepEqual(retries, [0, 1, 2, 3, 4, 0, 1, 2]);
});

test('a PermanentError stops the retries until the object changes; other objects go on meanwhile', async (t) => {
  cleanup(t, 'r7');
  cleanup(t, 'r8');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function strict({ name, spec }) {
    journal.add(`run ${name} ${spec.field}`);
    if (name === 'r7' && spec.field === 'a') throw new PermanentError('cannot');
  }, { resync: 0.02, when: ({ name }) => name === 'r7' || name === 'r8' });
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('r7');
    await capture.waitFor(/^Reconciler 'strict' failed permanently; not retried until the object changes: cannot$/);
    // r8's resyncs go on, many of r7's periods long: r7 is neither retried nor resynced meanwhile.
    await create('r8');
    await journal.until('run r8 a', 10);
    assert.equal(journal.count('run r7 a'), 1);
    await setField('r7', 'b');
    await journal.until('run r7 b');
  });
});

test('a reconciler never runs beside Kopf\'s handlers of the same object: one queue per object', async (t) => {
  cleanup(t, 'r9');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  const busy = () => new Promise((resolve) => setTimeout(resolve, 20)); // work that takes a while
  registry.on.reconcile(KopfExample, async function serial() {
    journal.add('start'); await busy(); journal.add('end');
  }, { resync: 0.01, when: ({ name }) => name === 'r9' });
  registry.on.update(KopfExample, async function updated({ spec }) {
    journal.add('start'); await busy(); journal.add('end'); journal.add(`updated ${spec.field}`);
  }, { when: ({ name }) => name === 'r9' });
  await withOperator(cluster, registry, async () => {
    await create('r9');
    for (const field of ['b', 'c', 'd']) {
      await setField('r9', field);
      await journal.until(`updated ${field}`);
    }
  });
  const runs = journal.entries.filter((e) => e === 'start' || e === 'end');
  assert.ok(runs.length > 10, `few runs: ${runs.length}`);
  runs.forEach((entry, i) => assert.equal(entry, i % 2 ? 'end' : 'start', `overlapping runs: ${runs.join(' ')}`));
});

test('many changes during a run lead to one more run, with the latest state', async (t) => {
  cleanup(t, 'r10');
  cleanup(t, 'r10-marker');
  const journal = new Journal();
  const first = gate();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, async function latest({ name, spec }) {
    journal.add(`${name} ${spec.field}`);
    if (name === 'r10' && spec.field === 'a') await first.wait;
  }, { when: ({ name }) => name.startsWith('r10') });
  await withOperator(cluster, registry, async () => {
    await create('r10');
    await journal.until('r10 a');
    for (const field of ['b', 'c', 'd', 'e']) await setField('r10', field);
    // The marker comes by the same watch stream, after those changes: once it is reconciled (by
    // another worker), the operator has seen them all.
    await create('r10-marker', { field: 'x' });
    await journal.until('r10-marker x');
    first.open();
    await journal.until('r10 e');
    await setField('r10-marker', 'y');
    await journal.until('r10-marker y');
  });
  assert.deepEqual(journal.entries.filter((e) => e.startsWith('r10 ')), ['r10 a', 'r10 e']);
});

test('a reconciler coexists with Kopf\'s handlers and their stored progress, and stores nothing', async (t) => {
  cleanup(t, 'r11');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function created({ retry }) {
    journal.add(`created ${retry}`);
    if (retry === 0) throw new TemporaryError('again', { delay: 0.1 });
    return { message: 'created' };
  }, { when: ({ name }) => name === 'r11' });
  registry.on.reconcile(KopfExample, function beside({ patch, annotations }) {
    // The progress of Kopf's handler is on the object while it is retried.
    if (annotations['kopf.zalando.org/created']) journal.add('saw progress');
    patch.status.reconciled = true;
    return { requeueAfter: 0.02 }; // runs often meanwhile, writing nothing new
  }, { when: ({ name }) => name === 'r11' });
  const observer = watcher(t);
  await withOperator(cluster, registry, async ({ capture }) => {
    await create('r11');
    const done = await observer.waitFor(KopfExample, ref('r11'), (o) => Boolean(o?.status?.created));
    assert.deepEqual(done?.status?.created, { message: 'created' });
    await journal.until('saw progress');
    // The reconciler's requests, many during the handler's delay, bring no change: they cut no sleep short.
    assert.deepEqual(capture.messages().filter((m) => m.startsWith('Sleeping was interrupted')), []);
  });
  assert.deepEqual(journal.entries.filter((e) => e.startsWith('created')), ['created 0', 'created 1']);
  const final = await observer.read(KopfExample, ref('r11'));
  const annotations = Object.keys(final.metadata?.annotations ?? {});
  assert.deepEqual(annotations, ['kopf.zalando.org/last-handled-configuration'], 'only Kopf\'s diff-base is left');
  assert.deepEqual(Object.keys(final.status ?? {}).sort(), ['created', 'reconciled']);
});

test('with `finalizer: true`, a deleted object goes once its reconciler and delete handlers are done', async (t) => {
  cleanup(t, 'r12');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function guarded({ deleting, retry }) {
    if (!deleting) return journal.add('reconciled');
    journal.add(`deleting ${retry}`);
    if (retry === 0) throw new TemporaryError('not yet', { delay: 0.05 });
  }, { finalizer: true, when: ({ name }) => name === 'r12' });
  registry.on.delete(KopfExample, function removed() { journal.add('delete handler'); }, {
    when: ({ name }) => name === 'r12',
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('r12');
    await journal.until('reconciled');
    await observer.waitFor(KopfExample, ref('r12'), (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)));
    await deleteObject(cluster.client, KopfExample, ref('r12'));
    await observer.waitFor(KopfExample, ref('r12'), (o) => o === null);
  });
  assert.deepEqual(journal.entries.filter((e) => e !== 'reconciled'), ['deleting 0', 'deleting 1', 'delete handler']);
});

test('with `finalizer: true` alone, the finalizer goes once the reconciler has run for the deletion', async (t) => {
  cleanup(t, 'r13');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function alone({ deleting }) { journal.add(deleting ? 'deleting' : 'living'); }, {
    finalizer: true, when: ({ name }) => name === 'r13',
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('r13');
    await observer.waitFor(KopfExample, ref('r13'), (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)));
    await deleteObject(cluster.client, KopfExample, ref('r13'));
    await observer.waitFor(KopfExample, ref('r13'), (o) => o === null);
  });
  assert.equal(journal.count('deleting'), 1);
});

test('a pause of the operator (peering, leader election) holds the reconciliation; the resume goes on', async (t) => {
  cleanup(t, 'r14');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function pausable({ name }) { journal.add(`run ${name}`); }, {
    resync: 0.02, when: ({ name }) => name === 'r14',
  });
  await withOperator(cluster, registry, async ({ op }) => {
    await create('r14');
    await journal.until('run r14', 3);
    const blocker = op.pauses.make('a test');
    blocker.turn(true);
    const paused = journal.count('run r14');
    // An absence has no event to await: the pause lasts twenty-five resync periods.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(journal.count('run r14') <= paused + 1, 'reconciled while paused (beyond a run in flight)');
    const resumed = journal.count('run r14');
    blocker.turn(false);
    await journal.until('run r14', resumed + 2);
  });
});

test('a reconciler that writes on every run does not keep Kopf\'s handlers of the object from running', async (t) => {
  cleanup(t, 'r15');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  let runs = 0;
  registry.on.reconcile(KopfExample, function restless({ patch }) {
    // Something new on every run, until Kopf's handler has run: each write's echo reconciles again.
    if (!journal.count('created')) patch.status.runs = ++runs;
  }, { when: ({ name }) => name === 'r15' });
  registry.on.create(KopfExample, function created() { journal.add('created'); }, {
    when: ({ name }) => name === 'r15',
  });
  await withOperator(cluster, registry, async () => {
    await create('r15');
    await journal.until('created');
  });
  assert.ok(runs >= 1);
});

test('with `finalizer: true`, a PermanentError while deleting lets the object go, as Kopf does', async (t) => {
  cleanup(t, 'r16');
  const journal = new Journal();
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function hopeless({ deleting }) {
    if (!deleting) return journal.add('living');
    journal.add('deleting');
    throw new PermanentError('cannot clean up');
  }, { finalizer: true, when: ({ name }) => name === 'r16' });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('r16');
    await observer.waitFor(KopfExample, ref('r16'), (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)));
    await deleteObject(cluster.client, KopfExample, ref('r16'));
    await observer.waitFor(KopfExample, ref('r16'), (o) => o === null);
  });
  assert.equal(journal.count('deleting'), 1);
});
