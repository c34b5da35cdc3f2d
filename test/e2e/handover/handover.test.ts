/**
 * Handover between Python Kopf 1.44 and this runtime, both ways, on one object.
 *
 * One operator handles the creation and stops; the other starts, resumes the object without
 * handling it again and without writing to it, then handles an update and the deletion. What
 * each one leaves on the object must be what the other expects: the diff-base annotation
 * byte for byte, no progress annotations, the finalizer.
 *
 * Then sub-handlers whose ids are made of an object's content, handed over both ways: what one has
 * done, the other does not do again. The ids Kopf can store (a plain one, one too long for an
 * annotation's name, cut and hashed) are stored under Kopf's keys, read by both; the ids whose Kopf
 * keys the API server refuses (`é` with a right-to-left override, a newline, a long run of `é`)
 * Kopf cannot store at all (every write of the object fails with 422, in Kopf 1.44 too): this
 * runtime stores them under keys of its own (runtime/progress/keys.ts) and runs each of them once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { runOperator, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import type { Condition } from '../../../runtime/structs/kubetypes.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { Cluster, loadYaml, refOf } from '../cluster.ts';
import {
  CRD_YAML,
  DIFF_BASE,
  FINALIZER,
  OBJECT_YAML,
  isHandled,
  progressKeys,
  successLine,
  tracebackIn,
} from '../rules.ts';
import { kopfRunCommand } from '../pykopf.ts';
import { storageKeys } from '../../../runtime/progress/keys.ts';
import { delta, requestCounts } from '../metrics.ts';

const ARGS = ['--standalone', '--namespace', 'default', '--verbose'];
const OURS = { files: [join(import.meta.dirname, 'handover.ts')] };
/** This runtime with settings.status.conditions on. */
const TELLING = { files: [...OURS.files, join(import.meta.dirname, 'conditions.ts')], conditions: true };
const KOPF = { files: [join(import.meta.dirname, 'kopf_handover.py')] };
const OURS_SUBHANDLERS = [join(import.meta.dirname, 'subhandlers.ts')];
const KOPF_SUBHANDLERS = [join(import.meta.dirname, 'kopf_subhandlers.py')];
/** Kopf's diff-base for examples/obj.yaml as created through the API: compact JSON and a newline. */
const essence = (field: string): string =>
  `{"spec":{"duration":"1m","field":"${field}","items":["item1","item2"]},` +
    `"metadata":{"labels":{"somelabel":"somevalue"},"annotations":{"someannotation":"somevalue"}}}\n`;

let cp: ControlPlane;
let cluster: Cluster;
let kopfCommand: string[];

before(async () => {
  [cp, kopfCommand] = await Promise.all([startControlPlane(), kopfRunCommand()]);
  await cp.installCrds([CRD_YAML]);
  cluster = new Cluster(cp.kubeconfigPath);
});

after(async () => {
  cluster?.close();
  await cp?.stop();
});

interface Side { name: string; files: string[]; command?: string[]; conditions?: boolean }

/** Ready, with the object's generation observed: what the side with the setting leaves after its cycle. */
function toldReady(object: KubeObject | null | undefined): boolean {
  const status = object?.status as { observedGeneration?: number; conditions?: Condition[] } | undefined;
  const ready = status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && status?.observedGeneration === object?.metadata?.generation;
}

async function handover(first: Side, second: Side): Promise<void> {
  const [object] = loadYaml(OBJECT_YAML);
  const ref = refOf(object!);
  await cluster.purge(KopfExample, ref);

  // The first operator handles the creation, then stops.
  const one = start(first);
  let created;
  try {
    await one.waitFor(/Starting the watch-stream for kopfexamples/);
    await cluster.create(KopfExample, object!);
    created = await cluster.waitFor(
      KopfExample,
      ref,
      (o) => o !== null && isHandled(o) && Boolean(o.status?.create_fn) && (!first.conditions || toldReady(o)),
    );
  } catch (error) {
    await one.stop();
    throw error;
  }
  await stopCleanly(one, first.name);
  assert.match(one.output, successLine('create_fn'));
  assert.equal(created?.metadata?.annotations?.[DIFF_BASE], essence('value'), `${first.name}'s diff-base`);
  assert.deepEqual(created?.metadata?.finalizers, [FINALIZER]);
  assert.deepEqual(created?.status?.create_fn, { message: 'created' });
  const before = await cluster.read(KopfExample, ref);

  // The second one resumes it: no creation again, no write (not even one that changes nothing,
  // which the resourceVersion would not show: the apiserver counts it).
  let requests = await requestCounts(cp.credentials, 'kopfexamples');
  const writesSince = async (): Promise<number> => {
    const now = await requestCounts(cp.credentials, 'kopfexamples');
    const { total } = delta(requests, now, ['PATCH', 'PUT']);
    requests = now;
    return total;
  };
  const two = start(second);
  try {
    await two.waitFor('Resuming is processed: 1 succeeded; 0 failed.');
    await two.waitFor('Handling cycle is finished');
    assert.doesNotMatch(two.output, /Handler 'create_fn'/, `${second.name} handled the creation again`);
    assert.equal(await writesSince(), 0, `${second.name} wrote to the object while resuming it:\n${two.output}`);
    // A write by the second operator would have changed the resourceVersion: the precondition catches it.
    await cluster.mergePatch(
      KopfExample,
      ref,
      { metadata: { resourceVersion: before.metadata?.resourceVersion }, spec: { field: 'changed' } },
    ).catch((error: unknown) => {
      throw new Error(
        `${second.name} wrote to the object while resuming it (the update's precondition failed): ` +
          `${String(error)}\n${two.output}`
      );
    });

    // …and handles the update.
    await two.waitFor(successLine('update_fn'));
    const updated = await cluster.waitFor(
      KopfExample,
      ref,
      (o) => o?.metadata?.annotations?.[DIFF_BASE] === essence('changed') && progressKeys(o).length === 0 && Boolean(
        o.status?.update_fn
      ),
    );
    await two.waitFor(
      'Handling cycle is finished',
      { since: two.lines.findIndex((line) => line.includes("'update_fn' succeeded")) },
    );
    // As Kopf does it: the diff-base on the object, the result on its status.
    assert.equal(
      await writesSince() - 1,
      2,
      `${second.name}'s writes for the update (besides the test's own):\n${two.output}`,
    );
    assert.deepEqual(updated?.status?.update_fn, { message: 'updated' });
    if (second.conditions) assert.ok(toldReady(updated), `the update is told: ${JSON.stringify(updated?.status)}`);
    assert.deepEqual(updated?.status?.create_fn, { message: 'created' }, 'the first result is kept');

    // …and the deletion: the finalizer the first one added is released by the second.
    await cluster.delete(KopfExample, ref);
    await two.waitFor(successLine('delete_fn'));
    await cluster.waitForGone(KopfExample, ref);
    await two.waitFor('Deleted, really deleted');
    // As Kopf does it: only the finalizer's removal (the delete handler's progress is never stored).
    assert.equal(await writesSince(), 1, `${second.name}'s writes for the deletion:\n${two.output}`);
  } catch (error) {
    await two.stop();
    throw error;
  }
  await stopCleanly(two, second.name);
  for (const id of ['resume_fn', 'update_fn', 'delete_fn']) {
    assert.equal(
      two.output.match(new RegExp(successLine(id).source, 'g'))?.length,
      1,
      `${second.name}: '${id}' succeeded once`,
    );
  }
}

function start(side: Side): RunningOperator {
  return runOperator({ command: side.command, args: ARGS, files: side.files, kubeconfigPath: cp.kubeconfigPath });
}

async function stopCleanly(operator: RunningOperator, name: string): Promise<void> {
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, `${name} exited with ${exit.exitCode} (signal ${exit.signal}):\n${exit.output}`);
  assert.equal(tracebackIn(exit.output), null, `${name} printed a traceback:\n${exit.output}`);
}

test('Python Kopf handles the creation, this runtime resumes the object and handles the rest', async () => {
  await handover({ name: 'Kopf', ...KOPF, command: kopfCommand }, { name: 'this runtime', ...OURS });
});

test('this runtime handles the creation, Python Kopf resumes the object and handles the rest', async () => {
  await handover({ name: 'this runtime', ...OURS }, { name: 'Kopf', ...KOPF, command: kopfCommand });
});

const LONG = `long-${'x'.repeat(80)}`;

function objectOf(name: string, items: string[]): KopfExample {
  return { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name, namespace: 'default' }, spec: { items } };
}

/** How many times each item's sub-handler ran in this output, by the item's position. */
function runs(output: string, items: readonly string[]): number[] {
  return items.map((_, position) => output.split(`Ran the sub-handler of item #${position}.`).length - 1);
}

/** Whether the object holds a success record for these items' sub-handlers, under their first key. */
function succeeded(object: KopfExample | null, items: readonly string[]): boolean {
  const annotations = object?.metadata?.annotations ?? {};
  return items.every((item) => {
    const stored = annotations[storageKeys('kopf.zalando.org', `create_items/${item}`)[0]!];
    return stored !== undefined && (JSON.parse(stored) as { success?: boolean }).success === true;
  });
}

/**
 * The creation handled: the diff-base written, no progress left. Kopf's touch annotation may stay:
 * Kopf writes it to wake itself after a delay, and this runtime, which never writes it, leaves it.
 */
function handled(object: KopfExample | null): boolean {
  if (object === null) return false;
  const annotations = { ...object.metadata?.annotations };
  delete annotations['kopf.zalando.org/touch-dummy'];
  return isHandled({ ...object, metadata: { ...object.metadata, annotations } });
}

/** The first operator does what it can of `items` (all but the last), the second the rest. */
async function subhandlerHandover(
  name: string, items: string[], first: string[], second: string[], ours: 'first' | 'second',
): Promise<void> {
  const object = objectOf(name, items);
  const ref = refOf(object);
  const start = (command: string[] | undefined, files: string[]) =>
    runOperator({ command, args: ARGS, files, kubeconfigPath: cp.kubeconfigPath });
  const one = ours === 'first' ? start(undefined, first) : start(kopfCommand, first);
  try {
    await one.waitFor(/Starting the watch-stream for kopfexamples/);
    await cluster.create(KopfExample, object);
    await cluster.waitFor(KopfExample, ref, (o) => succeeded(o, items.slice(0, -1)), { timeout: 60_000 });
  } finally {
    await stopCleanly(one, 'the first operator');
  }
  const two = ours === 'second' ? start(undefined, second) : start(kopfCommand, second);
  try {
    await two.waitFor(successLine('create_items'), { timeout: 60_000 });
    await cluster.waitFor(KopfExample, ref, handled);
  } finally {
    await stopCleanly(two, 'the second operator');
  }
  await cluster.delete(KopfExample, ref);
  assert.deepEqual(runs(one.output, items), [1, 1, 0], `the first one's runs:\n${one.output}`);
  assert.deepEqual(runs(two.output, items), [0, 0, 1], `the second one's runs:\n${two.output}`);
}

test('Python Kopf runs part of the sub-handlers, this runtime the rest, none of them again', async () => {
  await subhandlerHandover('kopf-then-ts', ['plain', LONG, 'ts-only'], KOPF_SUBHANDLERS, OURS_SUBHANDLERS, 'second');
});

test('this runtime runs part of the sub-handlers, Python Kopf the rest, none of them again', async () => {
  await subhandlerHandover('ts-then-kopf', ['plain', LONG, 'kopf-only'], OURS_SUBHANDLERS, KOPF_SUBHANDLERS, 'first');
});

test('ids no annotation name can hold: each sub-handler runs once and the object is handled', async () => {
  const items = ['é\u202e', 'line\nbreak', 'é'.repeat(70), 'plain'];
  const object = objectOf('hostile-ids', items);
  const operator = runOperator({ args: ARGS, files: OURS_SUBHANDLERS, kubeconfigPath: cp.kubeconfigPath });
  try {
    await operator.waitFor(/Starting the watch-stream for kopfexamples/);
    await cluster.create(KopfExample, object);
    await operator.waitFor(successLine('create_items'), { timeout: 60_000 });
    await cluster.waitFor(KopfExample, refOf(object), (o) => o !== null && isHandled(o));
  } finally {
    await stopCleanly(operator, 'this runtime');
  }
  await cluster.delete(KopfExample, refOf(object));
  assert.deepEqual(runs(operator.output, items), [1, 1, 1, 1], operator.output);
  assert.doesNotMatch(operator.output, /Throttling for|unexpected error/, 'no write was refused');
});

test('with settings.status.conditions: Python Kopf creates, this runtime resumes and handles the rest', async () => {
  await handover({ name: 'Kopf', ...KOPF, command: kopfCommand }, { name: 'this runtime', ...TELLING });
});

test('with settings.status.conditions: this runtime creates, Python Kopf resumes and handles the rest', async () => {
  await handover({ name: 'this runtime', ...TELLING }, { name: 'Kopf', ...KOPF, command: kopfCommand });
});
