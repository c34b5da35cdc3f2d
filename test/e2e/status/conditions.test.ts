/**
 * The status that tools read (`settings.status.conditions`), end to end: the objects as the API
 * server gives them are fed to Flux's own computation (kstatus, built from the Go module proxy),
 * and `kubectl wait --for=condition=Ready` is run against them. Everything awaited is an event (a
 * handler's journal entry, an object's state seen by a watch), never a time.
 */
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promisify } from 'node:util';
import { getObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { PermanentError, TemporaryError } from '../../../runtime/structs/errors.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { onPath } from '../../../runtime/testing/executables.ts';
import type { Condition } from '../../../runtime/structs/kubetypes.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { examplesOf } from '../engine/kopfexamples.ts';
import { Journal, gate } from '../engine/journal.ts';
import { withOperator } from '../engine/support.ts';
import { kstatus, type Kstatus } from './kstatus.ts';

const cluster = useCluster();
const { ref, create, setField, cleanup, watcher } = examplesOf(cluster);
const settings = () => defaultSettings({ posting: { enabled: false }, status: { conditions: true } });

let flux: Kstatus | undefined;
let fluxMissing = '';
const built = kstatus().then((tool) => {
  if ('compute' in tool) flux = tool.compute;
  else fluxMissing = tool.unavailable;
});

/** kstatus' verdict on the object as the API server has it now. */
async function verdict(name: string): Promise<{ status: string; message: string; object: KubeObject }> {
  const object = await getObject(cluster.client, KopfExample, ref(name));
  return { ...(await flux!(object)), object };
}

/** What the setting keeps in status. */
interface ToolStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

function statusOf(object: KubeObject | null): ToolStatus {
  return (object?.status ?? {}) as ToolStatus;
}

function condition(object: KubeObject | null, type: string): Condition | undefined {
  return statusOf(object).conditions?.find((c) => c.type === type);
}

/** The object's handling of its current generation is complete. */
function observed(object: KubeObject | null): boolean {
  return statusOf(object).observedGeneration === object?.metadata?.generation;
}

const kubectl = onPath('kubectl');
const run = promisify(execFile);

/** `kubectl wait --for=condition=Ready` on the object; true if it says the condition is met in time. */
async function kubectlWait(name: string, timeout: string): Promise<boolean> {
  const args = ['--kubeconfig', cluster.cp.kubeconfigPath, '-n', 'default', 'wait', '--for=condition=Ready',
    `--timeout=${timeout}`, `kopfexample/${name}`];
  try {
    await run(kubectl!, args);
    return true;
  } catch (error) {
    if (/timed out/.test(String((error as { stderr?: string }).stderr))) return false;
    throw error;
  }
}

test('InProgress while a handler retries and runs, Current and Ready when done, InProgress at once after '
  + 'a change; kubectl wait follows', async (t) => {
  await built;
  if (!flux) return t.skip(fluxMissing);
  cleanup(t, 's1');
  const journal = new Journal();
  const creating = gate();
  const updating = gate();
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn({ retry }) {
    if (!retry) throw new TemporaryError('not yet', { delay: 0.1 });
    journal.add('create running');
    await creating.wait;
    return { made: true };
  });
  registry.on.update(KopfExample, async function update_fn() {
    journal.add('update running');
    await updating.wait;
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, { settings: settings() }, async () => {
    await create('s1');
    await observer.waitFor(KopfExample, ref('s1'), (o) => condition(o, 'Reconciling')?.reason === 'HandlerRetrying');
    const retrying = await verdict('s1');
    assert.equal(retrying.status, 'InProgress');
    assert.match(retrying.message, /Handler 'create_fn' failed \(retry 1\).*: not yet$/);
    await journal.until('create running');
    assert.equal((await verdict('s1')).status, 'InProgress', 'while the retry runs');
    if (kubectl) assert.equal(await kubectlWait('s1', '1s'), false, 'not Ready while the handler runs');

    creating.open();
    await observer.waitFor(KopfExample, ref('s1'), (o) => condition(o, 'Ready')?.status === 'True');
    const done = await verdict('s1');
    assert.equal(done.status, 'Current');
    assert.ok(observed(done.object));
    const others = ['Reconciling', 'Stalled'].map((type) => condition(done.object, type)?.status);
    assert.deepEqual(others, ['False', 'False']);
    if (kubectl) assert.equal(await kubectlWait('s1', '30s'), true);

    await setField('s1', 'b');
    assert.equal((await verdict('s1')).status, 'InProgress', 'at once after the change');
    await journal.until('update running');
    assert.equal((await verdict('s1')).status, 'InProgress', 'while the update handler runs');
    if (kubectl) assert.equal(await kubectlWait('s1', '1s'), false, 'Ready is of the older generation');
    const waiting = kubectl ? kubectlWait('s1', '60s') : undefined;
    updating.open();
    await observer.waitFor(KopfExample, ref('s1'), observed);
    assert.equal((await verdict('s1')).status, 'Current');
    if (waiting) assert.equal(await waiting, true, 'kubectl wait ends when the new generation is handled');
  });
  if (!kubectl) t.diagnostic('kubectl is not on PATH: `kubectl wait` was not run');
});

test('Failed with the error when a handler gives up: PermanentError, or its retries exhausted', async (t) => {
  await built;
  if (!flux) return t.skip(fluxMissing);
  cleanup(t, 's2');
  cleanup(t, 's3');
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function refuse() { throw new PermanentError('cannot do this one'); },
    { when: ({ name }) => name === 's2' });
  registry.on.create(KopfExample, function flaky() { throw new Error('flaky to the end'); },
    { when: ({ name }) => name === 's3', retries: 2, backoff: 0.1 });
  const observer = watcher(t);
  await withOperator(cluster, registry, { settings: settings() }, async () => {
    await create('s2');
    await create('s3');
    for (const [name, message] of [['s2', 'cannot do this one'], ['s3', 'flaky to the end']] as const) {
      await observer.waitFor(KopfExample, ref(name), (o) => condition(o, 'Stalled')?.status === 'True');
      const failed = await verdict(name);
      assert.equal(failed.status, 'Failed', name);
      assert.ok(failed.message.includes(message), `${name}: ${failed.message}`);
      assert.equal(condition(failed.object, 'Ready')?.status, 'False');
      assert.ok(observed(failed.object));
    }
  });
});

test("a reconciler's PermanentError is Failed; its success is Current", async (t) => {
  await built;
  if (!flux) return t.skip(fluxMissing);
  cleanup(t, 's4');
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, function reconcile_fn({ spec }) {
    if (spec.field === 'bad') throw new PermanentError('the reconciler gives up');
  });
  const observer = watcher(t);
  await withOperator(cluster, registry, { settings: settings() }, async () => {
    await create('s4', { field: 'bad' });
    await observer.waitFor(KopfExample, ref('s4'), (o) => condition(o, 'Stalled')?.status === 'True');
    const failed = await verdict('s4');
    assert.equal(failed.status, 'Failed');
    assert.match(failed.message, /Reconciler 'reconcile_fn' failed permanently: the reconciler gives up/);
    await setField('s4', 'good');
    await observer.waitFor(KopfExample, ref('s4'), (o) => condition(o, 'Ready')?.status === 'True' && observed(o));
    assert.equal((await verdict('s4')).status, 'Current');
  });
});

test('without the setting, nothing of it is written', async (t) => {
  cleanup(t, 's5');
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn() { return 'done'; });
  const observer = watcher(t);
  await withOperator(cluster, registry, async () => {
    await create('s5');
    const handled = await observer.waitFor(KopfExample, ref('s5'), (o) => o?.status?.create_fn === 'done');
    assert.deepEqual(statusOf(handled), { create_fn: 'done' });
  });
});
