/**
 * One write per cycle, counted from outside: the PATCHes of the objects as the API server counts
 * them on its own /metrics (`apiserver_request_total` by verb and code), for a reconciler that
 * holds the finalizer and writes the status, alone and beside a Kopf create handler. The
 * reconciler's patch, the finalizer and the handlers' records are one plan: none of the
 * framework's writes is refused for a version that its own earlier write made stale (a 409 or 422),
 * and an object costs no more writes than the plan needs. Each step is awaited as an event: a run
 * of the reconciler that sees the object as the last write left it, or the object's absence.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { deleteObject } from '../../../runtime/kube/index.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { OperatorOptions } from '../../../runtime/operator/operator.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { DIFF_BASE, FINALIZER } from '../rules.ts';
import { delta, requestCounts, type RequestCounts } from '../metrics.ts';
import { useCluster } from '../use-cluster.ts';
import { examplesOf } from './kopfexamples.ts';
import { Journal } from './journal.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();

const { ref, create, cleanup, watcher } = examplesOf(cluster);

interface Writes { total: number; conflicts: number }

/** The PATCHes of KopfExamples since `before`, and how many of them were refused (409, 422). */
async function patchesSince(before: RequestCounts): Promise<Writes> {
  return delta(before, await requestCounts(cluster.cp.credentials, 'kopfexamples'), ['PATCH']);
}

/**
 * A reconciler with `finalizer: true` that writes what differs in the status, and journals each
 * run with what the object holds of the framework's writes (`settled` once it needs none).
 */
function reconcilingStatus(
  registry: OperatorRegistry, journal: Journal, names: readonly string[], settled: (body: KubeObject) => boolean,
): void {
  registry.on.reconcile(KopfExample, function converge({ name, spec, status, body, patch, deleting }) {
    if (status?.seen !== spec.field) patch.status.seen = spec.field;
    journal.add(deleting ? `deleting ${name}` : settled(body) ? `settled ${name}` : `run ${name}`);
  }, { finalizer: true, when: ({ name }) => names.includes(name ?? '') });
}

const finalized = (body: KubeObject): boolean => Boolean(body.metadata?.finalizers?.includes(FINALIZER));
const seen = (body: KubeObject): boolean => (body as { status?: { seen?: string } }).status?.seen === 'a';

/**
 * Creates the objects and waits until the reconciler has seen each as settled, then deletes them
 * and waits until they are gone: the PATCHes of each phase, as the API server counted them.
 */
async function createAndDelete(
  t: TestContext, registry: OperatorRegistry, journal: Journal, names: readonly string[],
  options: Partial<OperatorOptions> = {},
): Promise<{ created: Writes; released: Writes }> {
  for (const name of names) cleanup(t, name);
  const observer = watcher(t);
  return withOperator(cluster, registry, options, async () => {
    let before = await requestCounts(cluster.cp.credentials, 'kopfexamples');
    for (const name of names) await create(name);
    for (const name of names) await journal.until(`settled ${name}`);
    const created = await patchesSince(before);
    before = await requestCounts(cluster.cp.credentials, 'kopfexamples');
    for (const name of names) await deleteObject(cluster.client, KopfExample, ref(name));
    for (const name of names) await observer.waitFor(KopfExample, ref(name), (o) => o === null);
    return { created, released: await patchesSince(before) };
  });
}

test('a reconciler holding the finalizer: at most 2 PATCHes per object created, 1 to release it, none refused',
  async (t) => {
    const names = ['w1', 'w2', 'w3'];
    const journal = new Journal();
    const registry = new OperatorRegistry();
    reconcilingStatus(registry, journal, names, (body) => finalized(body) && seen(body));
    const { created, released } = await createAndDelete(t, registry, journal, names);
    assert.equal(created.conflicts, 0, `refused PATCHes while creating: ${JSON.stringify(created)}`);
    assert.ok(created.total <= 2 * names.length, `PATCHes for ${names.length} objects created: ${created.total}`);
    assert.equal(released.conflicts, 0, `refused PATCHes while releasing: ${JSON.stringify(released)}`);
    assert.ok(released.total <= names.length, `PATCHes for ${names.length} objects released: ${released.total}`);
    for (const name of names) assert.equal(journal.count(`deleting ${name}`), 1);
  });

test('a reconciler holding the finalizer beside a Kopf create handler: at most 3 PATCHes per object, none refused',
  async (t) => {
    const names = ['w4', 'w5', 'w6'];
    const journal = new Journal();
    const registry = new OperatorRegistry();
    const handled = (body: KubeObject): boolean => Boolean(body.metadata?.annotations?.[DIFF_BASE]);
    reconcilingStatus(registry, journal, names, (body) => finalized(body) && seen(body) && handled(body));
    registry.on.create(KopfExample, function created({ name }) { journal.add(`created ${name}`); }, {
      when: ({ name }) => names.includes(name ?? ''),
    });
    const { created, released } = await createAndDelete(t, registry, journal, names);
    assert.equal(created.conflicts, 0, `refused PATCHes while creating: ${JSON.stringify(created)}`);
    assert.ok(created.total <= 3 * names.length, `PATCHes for ${names.length} objects created: ${created.total}`);
    assert.equal(released.conflicts, 0, `refused PATCHes while releasing: ${JSON.stringify(released)}`);
    for (const name of names) assert.equal(journal.count(`created ${name}`), 1);
  });

test('a reconciler alone with the status that tools read: its conditions in the same PATCH as its own status, '
  + 'at most 2 per object created, 1 to release it, none refused', async (t) => {
  const names = ['w7', 'w8', 'w9'];
  const journal = new Journal();
  const registry = new OperatorRegistry();
  type Conditions = { status?: { conditions?: { type: string; status: string }[] } };
  const ready = (body: KubeObject): boolean => (body as Conditions).status?.conditions
    ?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  reconcilingStatus(registry, journal, names, (body) => finalized(body) && seen(body) && ready(body));
  const settings = defaultSettings({ posting: { enabled: false }, status: { conditions: true } });
  const { created, released } = await createAndDelete(t, registry, journal, names, { settings });
  assert.equal(created.conflicts, 0, `refused PATCHes while creating: ${JSON.stringify(created)}`);
  assert.ok(created.total <= 2 * names.length, `PATCHes for ${names.length} objects created: ${created.total}`);
  assert.equal(released.conflicts, 0, `refused PATCHes while releasing: ${JSON.stringify(released)}`);
  assert.ok(released.total <= names.length, `PATCHes for ${names.length} objects released: ${released.total}`);
});
