/**
 * The burst benchmark's floor: the least a Node process does to serve the burst as the operators
 * do, written straight against this runtime's API layer and its per-object queue. The same four
 * writes per object (the finalizer, the diff-base annotation, the status with the result, the
 * finalizer's removal), the same watch, worker limit, read coalescing and heap settings as
 * `kopf run`, and the runtime's own finalizer operations; none of the rest of the framework: no
 * handlers, causes, progress records, diff-base essence, logging, or posting of events.
 *
 * What the operator costs above this floor is the framework's; the floor's own cost is Node's,
 * TLS's, HTTP's and JSON's for the same requests and events. Run as the operators are:
 * `node floor.ts --namespace NS` (other options are ignored), with KUBECONFIG set.
 */
import { parseArgs } from 'node:util';
import { tuneHeap } from '../../runtime/cli/heap.ts';
import { returnMemoryWhenIdle } from '../../runtime/cli/idle-memory.ts';
import {
  KubeClient,
  isConflict,
  isInvalid,
  isNotFound,
  keyOf,
  patchObjectVersion,
  watchStream,
  type JsonPatchOp,
} from '../../runtime/kube/index.ts';
import { ObjectQueues } from '../../runtime/queueing/workers.ts';
import { defaultSettings } from '../../runtime/config/defaults.ts';
import { guardedJsonPatch } from '../../runtime/structs/patches.ts';
import { Finalizers } from '../../runtime/processing/finalizers.ts';
import { AnnotationsDiffBaseStorage } from '../../runtime/progress/diffbase.ts';
import { KopfExample } from '../../examples/kopfexample.ts';

// As `kopf run` does: the process re-executes itself with the same heap settings, and gives
// memory back when idle.
tuneHeap();
returnMemoryWhenIdle();

// The operators' defaults: Kopf's finalizer and diff-base annotation, the worker limit.
const { persistence, queueing } = defaultSettings();
const DIFF_BASE = new AnnotationsDiffBaseStorage().keys()[0]!;
/** `kopf run`'s read coalescing, in seconds (`RUN_READ_COALESCING` in runtime/cli/run.ts). */
const READ_COALESCING = 0.002;

const { values } = parseArgs({ options: { namespace: { type: 'string', short: 'n' } }, strict: false });
const namespace = typeof values.namespace === 'string' ? values.namespace : 'default';
const client = KubeClient.fromDefault({ readCoalescing: READ_COALESCING });
const stopping = new AbortController();

/** The step the object's state calls for: none once it is served (or deleted without our finalizer). */
function nextStep(finalizers: Finalizers, body: KopfExample): 'release' | 'finalize' | 'handle' | undefined {
  if (finalizers.deleting) return finalizers.present ? 'release' : undefined;
  if (!finalizers.present) return 'finalize';
  return body.metadata?.annotations?.[DIFF_BASE] ? undefined : 'handle';
}

/** One step of the object's cycle per event; the write's own event brings the next step. */
async function serve(body: KopfExample): Promise<void> {
  const ref = { namespace, name: body.metadata?.name ?? '' };
  const finalizers = new Finalizers(persistence.finalizer, body);
  const version = body.metadata?.resourceVersion;
  const patchFinalizers = (ops: JsonPatchOp[]): Promise<unknown> =>
    patchObjectVersion(client, KopfExample, ref, guardedJsonPatch(ops, version), { type: 'json' });
  switch (nextStep(finalizers, body)) {
    case 'release': await patchFinalizers(finalizers.removeOps()); return;
    case 'finalize': await patchFinalizers(finalizers.addOps()); return;
    case 'handle':
      await patchObjectVersion(
        client,
        KopfExample,
        ref,
        { metadata: { annotations: { [DIFF_BASE]: `${JSON.stringify({ spec: body.spec })}\n` } } },
      );
      await patchObjectVersion(
        client,
        KopfExample,
        ref,
        { status: { create_fn: { message: 'hello world' } } },
        { subresource: 'status' },
      );
  }
}

/**
 * Whether a listed object needs nothing (as a restart finds every object the floor has served): it
 * is not queued, as the runtime queues no listed object whose stored state says all is done.
 */
function served(body: KopfExample): boolean {
  return nextStep(new Finalizers(persistence.finalizer, body), body) === undefined;
}

const queues = new ObjectQueues<{ kind: 'event'; object: KopfExample }>(async (_key, { event }) => {
  try {
    await serve(event.object);
  } catch (error) {
    // A newer event than the one served has come or will come (a failed test, a vanished object).
    if (!isConflict(error) && !isInvalid(error) && !isNotFound(error)) throw error;
  }
}, { workerLimit: queueing.workerLimit });

process.once('SIGTERM', () => stopping.abort());
process.once('SIGINT', () => stopping.abort());
for await (const event of watchStream(client, KopfExample, { namespace, signal: stopping.signal })) {
  if (!('object' in event) || event.type === 'DELETED') continue;
  if (event.type === 'LISTED' && served(event.object)) continue;
  queues.enqueue(keyOf(event.object), { kind: 'event', object: event.object });
}
await queues.stop(1);
client.close();
