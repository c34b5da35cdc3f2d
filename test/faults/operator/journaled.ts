/**
 * The operator under fault injection (`kopf run` loads this file): two creation handlers, an
 * update handler and a deletion handler of KopfExamples. Each run of a handler is written to a
 * journal (a JSON line, appended synchronously before the handler returns, so a SIGKILL cannot
 * lose the line of a handler that returned), with the framework's marks on the object as the
 * apiserver had them when the run started: the suite reads from them whether this handler's
 * success had been recorded already (journal.ts), i.e. whether the run is a re-run after
 * recorded completion, which must never happen.
 *
 * The results go to `status.<handler id>` ({ step }): the suite checks that the latest
 * `spec.step` of every object was handled.
 *
 * Environment: FAULTS_JOURNAL (the journal file), FAULTS_KUBECONFIG (the apiserver itself, not a
 * fault proxy: the record check must see the truth), FAULTS_SETTINGS (JSON merged into the
 * operator's settings at startup, e.g. shorter watch inactivity for a silenced stream),
 * FAULTS_RESOURCE (below), FAULTS_WORK_MS (the least a run takes, 10 ms by default: longer runs
 * make two processes' runs of one object likelier to meet, if anything lets them).
 *
 * When a run returns, a second line says so (its end): a run cut short by its process's death
 * has none.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { on, type ChangingContext } from 'kopf';
import { KubeClient, getObject } from '../../../runtime/kube/index.ts';
import { KopfExample, type KopfExampleFields } from '../../../examples/kopfexample.ts';
import type { HandlerId, JournalEntry, ObjectMarks, RunEnd } from '../journal.ts';

const JOURNAL = required('FAULTS_JOURNAL');
const WORK_MS = Number(process.env.FAULTS_WORK_MS ?? 10);
const config = new KubeConfig();
config.loadFromFile(required('FAULTS_KUBECONFIG'));
const direct = KubeClient.fromKubeConfig(config, { errorBackoffs: [0.2, 0.5, 1, 1, 2, 3, 5, 8, 13] });

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

on.startup(function configure({ settings }) {
  const overrides = JSON.parse(process.env.FAULTS_SETTINGS ?? '{}') as Record<string, Record<string, unknown>>;
  const groups = settings as unknown as Record<string, Record<string, unknown>>;
  for (const [group, values] of Object.entries(overrides)) Object.assign(groups[group]!, values);
});

type Context = ChangingContext<KopfExample, KopfExampleFields>;

/** The framework's marks on the object right now; null if it cannot be read (the apiserver is down for long). */
async function marksNow(context: Context): Promise<ObjectMarks | null> {
  try {
    const object = await getObject(direct, KopfExample, { namespace: context.namespace, name: context.name });
    return { annotations: object.metadata?.annotations ?? {}, kopf: object.status?.kopf ?? null };
  } catch {
    return null;
  }
}

function stepOf(context: Context): number {
  return Number(context.spec.step ?? 0);
}

async function journaled(handler: HandlerId, context: Context): Promise<{ step: number }> {
  const seen = await marksNow(context);
  const entry: JournalEntry = {
    t: Date.now(), pid: process.pid, handler, uid: context.uid, name: context.name, step: stepOf(context),
    retry: context.retry, seen,
  };
  appendFileSync(JOURNAL, `${JSON.stringify(entry)}\n`);
  // A little work, so that kills at random moments land inside handlers too.
  await sleep(WORK_MS + (entry.t % 40));
  const end: RunEnd = { ended: Date.now(), pid: entry.pid, handler, uid: entry.uid, t: entry.t };
  appendFileSync(JOURNAL, `${JSON.stringify(end)}\n`);
  return { step: entry.step };
}

/**
 * FAULTS_RESOURCE names the resource by a string instead (e.g. `kopfexamples.kopf.dev`): then the
 * operator resolves it through discovery, as an operator that is not generated for its CRD does.
 */
const byName = process.env.FAULTS_RESOURCE;
if (byName) {
  // Untyped contexts for a resource named by a string; the objects are KopfExamples all the same.
  const as = (context: unknown): Context => context as Context;
  on.create(byName, function create_a(context) { return journaled('create_a', as(context)); });
  on.create(byName, function create_b(context) { return journaled('create_b', as(context)); });
  on.update(byName, function update_fn(context) { return journaled('update_fn', as(context)); });
  on.delete(byName, async function delete_fn(context) { await journaled('delete_fn', as(context)); });
} else {
  on.create(KopfExample, function create_a(context) { return journaled('create_a', context); });
  on.create(KopfExample, function create_b(context) { return journaled('create_b', context); });
  on.update(KopfExample, function update_fn(context) { return journaled('update_fn', context); });
  on.delete(KopfExample, async function delete_fn(context) { await journaled('delete_fn', context); });
}
