/**
 * Reconcilers without a cluster: their registration, the mapping of related objects to the
 * objects they concern (hostile input included), the backoff, and how the queue takes requests.
 */
import { test } from 'node:test';
import { ev, req, type Named } from '../queueing/requests.ts';
import assert from 'node:assert/strict';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { RegistrationError } from '../../../runtime/registry/ids.ts';
import { ConfigMaps, Secrets } from '../../../runtime/structs/builtins.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { controllerUid, requestedNames } from '../../../runtime/reconciling/related-requests.ts';
import { backoffDelay } from '../../../runtime/reconciling/run-outcomes.ts';
import { timerDelay } from '../../../runtime/queueing/sleeping.ts';
import { ObjectQueues } from '../../../runtime/queueing/workers.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

test('on.reconcile: one per resource; related resources by descriptor; a resync above 0; no retry options', () => {
  const registry = new OperatorRegistry();
  const noop = () => undefined;
  registry.on.reconcile(KopfExample, function first() { /* */ }, {
    owns: [ConfigMaps], watches: [{ resource: Secrets, map: noop as never }], resync: 60, finalizer: true,
  });
  const [handler] = registry.resourceHandlers;
  assert.equal(handler?.kind, 'reconcile');
  if (handler?.kind !== 'reconcile') return;
  assert.deepEqual(
    [handler.id, handler.resync, handler.finalizer, handler.owns.length, handler.watches.length],
    ['first', 60, true, 1, 1],
  );
  assert.equal(handler.owns[0]?.metadataOnly, false, 'owned children are watched in full');
  const slim = new OperatorRegistry();
  const metadataOnly = { resource: ConfigMaps, metadataOnly: true };
  slim.on.reconcile(KopfExample, function slim_fn() { /* */ }, { owns: [metadataOnly] });
  const [slimHandler] = slim.resourceHandlers;
  const asked = slimHandler?.kind === 'reconcile' && slimHandler.owns[0]?.metadataOnly;
  assert.equal(asked, true, 'or as metadata, if asked');
  assert.throws(() => registry.on.reconcile(KopfExample, function second() { /* */ }),
    /has a reconciler already \('first'\)/);
  const other = new OperatorRegistry();
  assert.throws(() => other.on.reconcile(KopfExample, noop, { owns: ['configmaps' as never] }),
    /name the resource by its descriptor/);
  assert.throws(() => other.on.reconcile(KopfExample, noop, { resync: 0 }), /`resync` must be above 0/);
  assert.throws(() => other.on.reconcile(KopfExample, noop, { retries: 3 } as never), RegistrationError);
  assert.throws(() => other.on.reconcile(KopfExample, noop, { watches: [{ resource: Secrets }] as never }),
    /map: the handler must be a function/);
});

const child = (ownerReferences: unknown): KubeObject => ({ metadata: { ownerReferences } } as KubeObject);

test('an owned child names its owner by its controller owner reference of the group and kind only', () => {
  const ref = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', uid: 'u1', controller: true, name: 'x' };
  assert.equal(controllerUid(child([ref]), KopfExample), 'u1');
  assert.equal(controllerUid(child([{ ...ref, apiVersion: 'kopf.dev/v2' }]), KopfExample), 'u1', 'any version');
  assert.equal(controllerUid(child([{ ...ref, controller: false }]), KopfExample), undefined);
  assert.equal(controllerUid(child([{ ...ref, apiVersion: 'other.dev/v1' }]), KopfExample), undefined);
  assert.equal(controllerUid(child([{ ...ref, kind: 'Other' }]), KopfExample), undefined);
  // What the cluster sends is not trusted: nothing malformed throws.
  for (const hostile of [null, 'x', 42, [null, 7, 'x', { ...ref, uid: 5 }, { ...ref, apiVersion: 3 }]]) {
    assert.equal(controllerUid(child(hostile), KopfExample), undefined);
  }
  assert.equal(controllerUid({} as KubeObject, KopfExample), undefined);
});

test('a mapping\'s requests: names without a name are ignored, malformed ones counted, nothing throws', () => {
  assert.deepEqual(requestedNames([{ namespace: 'ns', name: 'a' }, { name: 'b' }, { namespace: 'ns', name: null }]),
    { names: ['ns/a', '/b'], malformed: 0 });
  assert.deepEqual(requestedNames([{ name: 5 }, { namespace: 7, name: 'x' }, null, 'text']),
    { names: [], malformed: 2 });
  assert.deepEqual(requestedNames(undefined), { names: [], malformed: 0 });
  assert.deepEqual(requestedNames('nonsense'), { names: [], malformed: 1 });
});

test('the backoff doubles from its base with each failure in a row, up to its cap', () => {
  const settings = { backoffBase: 0.5, backoffCap: 3 };
  assert.deepEqual([1, 2, 3, 4, 5, 60].map((n) => backoffDelay(n, settings)), [0.5, 1, 2, 3, 3, 3]);
});

test('a requeue or resync too long for Node\'s timers waits as long as they can, not zero', () => {
  assert.equal(timerDelay(1.5), 1500);
  assert.equal(timerDelay(1e12), 2 ** 31 - 1);
});

test('settings.reconciling: positive seconds, the cap not below the base', () => {
  assert.deepEqual(defaultSettings().reconciling, { backoffBase: 0.005, backoffCap: 1000 });
  assert.throws(() => defaultSettings({ reconciling: { backoffBase: 0 } }),
    /settings\.reconciling\.backoffBase must be a positive number of seconds; got 0\./);
  assert.throws(() => defaultSettings({ reconciling: { backoffBase: 2, backoffCap: 1 } }),
    /settings\.reconciling\.backoffCap must not be shorter than backoffBase\./);
});

test('a request is queued only where no event waits, and never presses the running cycle', async () => {
  const seen: string[] = [];
  let pressed = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  const queues = new ObjectQueues<Named<string>>(async (_key, { event: { name: event }, pressure }) => {
    seen.push(event);
    if (event === 'first') {
      await released;
      pressed = pressure.aborted;
    }
    if (event !== 'first') finish();
  });
  queues.enqueue('a', ev('first'));
  queues.enqueue('a', req('request 1'));
  queues.enqueue('a', req('request 2')); // merged: one waits already
  release();
  await finished;
  assert.equal(pressed, false, 'a request pressed the running cycle');
  queues.enqueue('b', ev('first'));
  queues.enqueue('b', ev('change'));
  queues.enqueue('b', req('request 3')); // the change waits: it serves as well
  await new Promise<void>((resolve) => { finish = resolve; });
  assert.deepEqual(seen, ['first', 'request 1', 'first', 'change']);
});
