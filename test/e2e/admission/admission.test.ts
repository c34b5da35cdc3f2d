/**
 * Admission end to end: the local control plane's kube-apiserver calls the embedded operator's
 * webhook server on loopback, through the webhook configurations the operator manages. Refusals
 * and their messages, patches in the stored object, warnings printed by kubectl, dry runs, and the
 * failure policy once the operator is gone; an operator without its server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ApiError, createObject, getObject, isNotFound, type KubeClient } from '../../../runtime/kube/index.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { PRESENT } from '../../../runtime/registry/markers.ts';
import { AdmissionError } from '../../../runtime/admission/admission-errors.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';
import { CONFIGURATIONS } from '../../../runtime/webhooks/managed.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import type { KopfExample as KopfExampleObject } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { startOperator, withOperator } from '../engine/support.ts';
import type { AdmissionServer } from '../../../runtime/config/admission.ts';

// No retries of refused requests: a refusal is what the tests look at (a 500 would be retried).
const cluster = useCluster({ client: { errorBackoffs: [] } });
const MANAGED = 'e2e.kopf.dev';

function settings() {
  return defaultSettings({
    posting: { enabled: false },
    admission: { server: new WebhookServer({ addr: '127.0.0.1' }), managed: MANAGED },
  });
}

/** The handlers under test; `seen` collects what the validator was called with. */
function registryOf(seen: { name: string; dryrun: boolean }[]) {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function probe({ labels }) {
    throw new AdmissionError(`probed, mutated ${labels.mutated}`, 403);
  }, { labels: { probe: PRESENT } });
  registry.on.validate(KopfExample, function check_field({ name, spec, dryrun, warnings, operation }) {
    seen.push({ name, dryrun });
    warnings.push(`Checked the ${operation} of ${name}.`);
    if (spec.field === 'wrong') throw new AdmissionError(`The field of ${name} is wrong.`, 422);
  });
  registry.on.mutate(KopfExample, function inject({ patch, labels }) {
    patch.spec.injected = 123;
    patch.metadata.labels.mutated = labels.mutated === undefined ? 'once' : 'again';
  });
  // Both pass while the operator runs.
  const failing = { labels: { policy: 'fail' }, persistent: true };
  registry.on.validate(KopfExample, function must_fail() { /* passes */ }, failing);
  const ignoring = { labels: { policy: 'ignore' }, persistent: true, ignoreFailures: true };
  registry.on.validate(KopfExample, function may_fail() { /* passes */ }, ignoring);
  return registry;
}

/**
 * The API server reads webhook configurations through a cache: after the operator has written them,
 * the first requests may not see them yet. Dry-run creates of a probe object are sent until the
 * probe validator refuses one that the mutator has changed: both configurations are in use.
 */
function untilAdmitting(client: KubeClient): Promise<void> {
  const probe = { metadata: { name: 'probe', namespace: 'default', labels: { probe: 'yes' } } };
  return until(client, probe, (error) => error instanceof ApiError && error.message.includes('probed, mutated once'));
}

/** After the operator's exit, the API server calls no non-persistent webhooks: a plain object is admitted. */
function untilUnmanaged(client: KubeClient): Promise<void> {
  return until(client, { metadata: { name: 'plain', namespace: 'default' } }, (error) => error === undefined);
}

async function until(client: KubeClient, object: KopfExampleObject, done: (error: unknown) => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const error = await createObject(client, KopfExample, object, { dryRun: true })
      .then(() => undefined, (e: unknown) => e);
    if (done(error)) return;
    if (Date.now() > deadline) throw new Error(`The API server does not call the webhooks as expected: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function object(name: string, spec: KopfExampleObject['spec'] = {}, labels = {}): KopfExampleObject {
  return { metadata: { name, namespace: 'default', labels }, spec };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ApiError, `refused with an API error, not ${String(error)}`);
  return error;
}

test('a validator refuses a bad object with its message and code, admits a good one; mutations stay', async () => {
  const seen: { name: string; dryrun: boolean }[] = [];
  await withOperator(cluster, registryOf(seen), { settings: settings() }, async () => {
    await untilAdmitting(cluster.client);
    const bad = await refusal(createObject(cluster.client, KopfExample, object('bad', { field: 'wrong' })));
    assert.equal(bad.status, 422);
    assert.match(bad.message, /webhook "check-field\.e2e\.kopf\.dev" denied the request: The field of bad is wrong\./);
    await assert.rejects(getObject(cluster.client, KopfExample, { namespace: 'default', name: 'bad' }), isNotFound);

    const good = await createObject(cluster.client, KopfExample, object('good', { field: 'fine' }));
    assert.equal(good.spec?.injected, 123);
    const stored = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'good' });
    assert.deepEqual(stored.spec, { field: 'fine', injected: 123 });
    assert.equal(stored.metadata?.labels?.mutated, 'once');
    assert.deepEqual(seen.filter((s) => s.name === 'good'), [{ name: 'good', dryrun: false }]);
  });
});

test('warnings reach the client: kubectl prints them', async () => {
  const kubectl = cluster.cp.binaries.kubectl;
  assert.ok(kubectl, 'the control plane has kubectl');
  await withOperator(cluster, registryOf([]), { settings: settings() }, async () => {
    await untilAdmitting(cluster.client);
    const warned = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', ...object('warned') };
    const run = promisify(execFile)(kubectl, ['--kubeconfig', cluster.cp.kubeconfigPath, 'create', '-f', '-']);
    run.child.stdin!.end(JSON.stringify(warned));
    const { stdout, stderr } = await run;
    assert.match(stderr, /Warning: Checked the CREATE of warned\./);
    assert.match(stdout, /kopfexample\.kopf\.dev\/warned created/);
  });
});

test('a dry-run create reaches the validator with dryrun true, and nothing is stored', async () => {
  const seen: { name: string; dryrun: boolean }[] = [];
  await withOperator(cluster, registryOf(seen), { settings: settings() }, async () => {
    await untilAdmitting(cluster.client);
    const dry = await createObject(cluster.client, KopfExample, object('dry', { field: 'x' }), { dryRun: true });
    assert.equal(dry.spec?.injected, 123, 'the mutation is in the answer of a dry run too');
    assert.deepEqual(seen.filter((s) => s.name === 'dry'), [{ name: 'dry', dryrun: true }]);
    await assert.rejects(getObject(cluster.client, KopfExample, { namespace: 'default', name: 'dry' }), isNotFound);
  });
});

test('with the operator stopped, only persistent webhooks stay, and their failure policy decides', async () => {
  await withOperator(cluster, registryOf([]), { settings: settings() }, async () => {
    await untilAdmitting(cluster.client);
    const configuration = await getObject(cluster.client, CONFIGURATIONS.validating, { name: MANAGED });
    assert.deepEqual(configuration.webhooks?.map((w) => [w.name, w.failurePolicy]), [
      ['probe.e2e.kopf.dev', 'Fail'], ['check-field.e2e.kopf.dev', 'Fail'],
      ['must-fail.e2e.kopf.dev', 'Fail'], ['may-fail.e2e.kopf.dev', 'Ignore'],
    ]);
    const mutating = await getObject(cluster.client, CONFIGURATIONS.mutating, { name: MANAGED });
    assert.deepEqual(mutating.webhooks?.map((w) => w.name), ['inject.e2e.kopf.dev']);
  });
  const validating = await getObject(cluster.client, CONFIGURATIONS.validating, { name: MANAGED });
  assert.deepEqual(validating.webhooks?.map((w) => w.name), ['must-fail.e2e.kopf.dev', 'may-fail.e2e.kopf.dev']);
  const mutating = await getObject(cluster.client, CONFIGURATIONS.mutating, { name: MANAGED });
  assert.deepEqual(mutating.webhooks ?? [], []);
  await untilUnmanaged(cluster.client);

  const refused = await refusal(createObject(cluster.client, KopfExample, object('failing', {}, { policy: 'fail' })));
  assert.match(refused.message, /failed calling webhook "must-fail\.e2e\.kopf\.dev"/);
  const admitted = await createObject(cluster.client, KopfExample, object('ignoring', {}, { policy: 'ignore' }));
  assert.equal(admitted.spec?.injected, undefined, 'no mutation without the operator');
});

test('the operator stops, saying why, when its webhook server ends; it fails at start without a server', async () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check() { /* passes */ });
  const ending: AdmissionServer = {
    async *serve() { yield { url: 'https://127.0.0.1:1/' }; },
  };
  const endingSettings = defaultSettings({ posting: { enabled: false }, admission: { server: ending } });
  const ended = startOperator(cluster, registry, { settings: endingSettings });
  await assert.rejects(ended.op.done, /The webhook server has stopped: the operator stops too\./);
  const serverless = startOperator(cluster, registry);
  await assert.rejects(serverless.op.ready, /but no webhook server is configured in `settings\.admission\.server`/);
  await assert.rejects(serverless.op.done);
});
