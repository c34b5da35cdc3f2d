/**
 * Operator-level activities on a real control plane: credentials from login handlers (rejected
 * ones replaced by logging in again, expired ones too), the operator's memo in every kind of
 * handler, the liveness endpoint (the probes' results; red when the operator is not running, and
 * when its watch stream is silenced by a proxy and cannot be re-established), and two operators
 * in one process that do not interfere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as pause } from 'node:timers/promises';
import {
  createObject,
  deleteObject,
  getObject,
  patchObject,
  type ConnectionInfo,
} from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from '../../../runtime/progress/index.ts';
import type { Memo } from '../../../runtime/registry/contexts.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { useFaultProxy } from '../faults/use-proxy.ts';
import { SILENCE, STALL } from '../faults/proxy.ts';
import { startOperator, withOperator } from './support.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

/** The control plane's admin credentials, as a login handler returns them. */
function adminConnection(extra: Partial<ConnectionInfo> = {}): ConnectionInfo {
  const { server, ca, cert, key } = cluster.cp.credentials;
  return { server, caData: ca, certificateData: cert, privateKeyData: key, ...extra };
}

/** Asks the endpoint until `accept` holds for its answer; polled, as nothing announces a change of health. */
async function pollHealth(url: string, accept: (status: number, body: string) => boolean, timeout = 60_000): Promise<{
  status: number;
  body: string
}> {
  const deadline = Date.now() + timeout;
  let last = { status: 0, body: '' };
  while (Date.now() < deadline) {
    const response = await fetch(url);
    last = { status: response.status, body: await response.text() };
    if (accept(last.status, last.body)) return last;
    await pause(200);
  }
  throw new Error(`The liveness endpoint did not answer as expected in ${timeout} ms; last: ${JSON.stringify(last)}`);
}

test('credentials come from the login handler: a rejected token leads to a new login, expired credentials ' +
  'too', async () => {
  const registry = new OperatorRegistry();
  const logins: number[] = [];
  registry.on.login(function login_fn({ retry }) {
    logins.push(retry);
    // First an invalid token (401); then the admin's certificate, expiring soon.
    if (logins.length === 1)
      return { server: cluster.cp.credentials.server, caData: cluster.cp.credentials.ca, token: 'not-a-valid-token' };
    return adminConnection({ expiration: new Date(Date.now() + 2000) });
  });
  registry.on.create(KopfExample, function create_fn() { return { logins: logins.length }; });
  // Watches that the server ends every second keep requests going, so the expiry is noticed.
  const settings = defaultSettings({ posting: { enabled: false }, watching: { serverTimeout: 1 } });
  await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    await capture.waitFor('Initial authentication has finished.', { timeout: 30 });
    await capture.waitFor('Re-authentication has been initiated.', { timeout: 30 });
    await createObject(cluster.client, KopfExample, { metadata: { name: 'login-1', namespace: 'default' }, spec: {} });
    await capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 30 });
    // The second credentials expire after 2 s: a third login follows.
    await capture.waitFor(
      (r) => r.message === 'Re-authentication has finished.' && logins.length >= 3,
      { timeout: 30 },
    );
    const reauths = capture.messages().filter((m) => m === 'Re-authentication has been initiated.').length;
    assert.ok(reauths >= 2, `re-authentications: ${reauths}`);
    assert.ok(capture.messages().includes("Activity 'login_fn' succeeded."));
    await deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'login-1' });
  });
});

test('the operator\'s memo reaches startup, login, probe, resource and cleanup handlers', async () => {
  const registry = new OperatorRegistry();
  const seen: Record<string, unknown> = {};
  let probed!: (value: unknown) => void;
  const cleanupSaw = new Promise<unknown>((resolve) => { probed = resolve; });
  registry.on.startup(
    function startup_fn({ memo }) { memo['greeting'] = 'hello'; seen['startup'] = memo['greeting']; }
  );
  registry.on.login(function login_fn({ memo }) { seen['login'] = memo['greeting']; return adminConnection(); });
  registry.on.probe(function probe_fn({ memo }) { return memo['greeting']; });
  registry.on.create(
    KopfExample,
    function create_fn({ memo }) { seen['create'] = memo['greeting']; memo['own'] = 'per-object'; },
  );
  registry.on.cleanup(function cleanup_fn({ memo }) { probed({ greeting: memo['greeting'], own: memo['own'] }); });
  const memo: Memo = {};
  const running = startOperator(cluster, registry, { memo, liveness: 'http://127.0.0.1:0/healthz' });
  try {
    await running.op.ready;
    await createObject(cluster.client, KopfExample, { metadata: { name: 'memo-1', namespace: 'default' }, spec: {} });
    await running.capture.waitFor('Creation is processed: 1 succeeded; 0 failed.', { timeout: 30 });
    const url = running.op.livenessUrl;
    assert.ok(url);
    assert.deepEqual(await (await fetch(url)).json(), { probe_fn: 'hello' });
  } finally {
    await running.op.stop();
  }
  assert.deepEqual(seen, { startup: 'hello', login: 'hello', create: 'hello' });
  assert.deepEqual(
    await cleanupSaw,
    { greeting: 'hello', own: undefined },
    'objects get copies of the memo; the operator\'s own stays its own',
  );
  assert.deepEqual(memo, { greeting: 'hello' }, 'the memo given is the one the handlers share');
  await deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'memo-1' });
});

test('liveness: green while the watch is fresh; red when it is silenced and cannot be re-established, and when the ' +
  'operator stops', async () => {
  const proxy = await faultProxy();
  const registry = new OperatorRegistry();
  registry.on.probe(function watched_fn() { return 'ok'; });
  registry.on.event(KopfExample, function event_fn() {}); // something to watch
  let endCleanup!: () => void;
  const cleanupHeld = new Promise<void>((resolve) => { endCleanup = resolve; });
  let cleanupBegan!: () => void;
  const cleaning = new Promise<void>((resolve) => { cleanupBegan = resolve; });
  registry.on.cleanup(async function cleanup_fn() { cleanupBegan(); await cleanupHeld; });
  const settings = defaultSettings({ posting: { enabled: false }, watching: { inactivityTimeout: 2 } });
  const running = startOperator(
    cluster,
    registry,
    { kubeconfig: proxy.kubeconfig, settings, liveness: 'http://127.0.0.1:0/healthz' },
  );
  const watch = { path: /\/kopfexamples$/, watch: true };
  try {
    await running.op.ready;
    await running.capture.waitFor(/^Starting the watch-stream for kopfexamples/, { timeout: 30 });
    const url = running.op.livenessUrl;
    assert.ok(url);
    assert.deepEqual(await pollHealth(url, (status) => status === 200), { status: 200, body: '{"watched_fn":"ok"}' });

    // New watch requests are held unanswered; the open stream goes quiet.
    const stalled = proxy.inject(watch, STALL);
    const silenced = proxy.inject(watch, SILENCE, { open: true, times: 0 });
    const red = await pollHealth(url, (status) => status === 503);
    assert.match(
      red.body,
      /^Watch-streams silent past their inactivity timeout: kopfexamples\.v1\.kopf\.dev in 'default' \(\d+\.\d s overdue\)\.\n$/, // lint-ignore: a regular expression cannot wrap
    );
    assert.ok(stalled.hits.count >= 1, 'the stream tried to re-establish itself');

    // Let the watches through again: the stream is re-established, and the endpoint green.
    stalled.remove();
    silenced.remove();
    stalled.cut();
    await pollHealth(url, (status) => status === 200);

    const stopping = running.op.stop();
    await cleaning;
    assert.deepEqual(
      await pollHealth(url, (status) => status === 503),
      { status: 503, body: 'The operator is not running.\n' },
    );
    endCleanup();
    await stopping;
    await assert.rejects(fetch(url), 'the endpoint is closed once the operator has stopped');
  } finally {
    endCleanup();
    await running.op.stop();
  }
});

test('two operators in one process, each with its registry, settings and memo, do not interfere', async () => {
  const calls: string[] = [];
  const operatorOf = (name: 'a' | 'b') => {
    const registry = new OperatorRegistry();
    const fn = function (this: void, { memo, spec }: { memo: Memo; spec: { field?: unknown } }) {
      calls.push(`${name}:${String(memo['name'])}:${String(spec.field)}`);
    };
    registry.on.create(KopfExample, fn, { id: `create_${name}` });
    registry.on.update(KopfExample, fn, { id: `update_${name}` });
    registry.on.delete(KopfExample, function delete_fn() { calls.push(`${name}:delete`); });
    const prefix = `${name}.example.com`;
    const settings = defaultSettings({
      posting: { enabled: false },
      persistence: {
        finalizer: `${prefix}/finalizer`,
        progressStorage: new SmartProgressStorage({ prefix }),
        diffbaseStorage: new AnnotationsDiffBaseStorage({ prefix }),
      },
    });
    return startOperator(cluster, registry, { settings, memo: { name: name.toUpperCase() } });
  };
  const a = operatorOf('a');
  const b = operatorOf('b');
  const ref = { namespace: 'default', name: 'two-1' };
  try {
    await Promise.all([a.op.ready, b.op.ready]);
    await createObject(cluster.client, KopfExample, { metadata: ref, spec: { field: 'x' } });
    // Said after the patch that ends the creation's cycle (the diff-base stored).
    await a.capture.waitFor('Handling cycle is finished, waiting for new changes.', { timeout: 30 });
    await b.capture.waitFor('Handling cycle is finished, waiting for new changes.', { timeout: 30 });
    const object = await getObject(cluster.client, KopfExample, ref);
    assert.deepEqual(
      [...(object.metadata?.finalizers ?? [])].sort(),
      ['a.example.com/finalizer', 'b.example.com/finalizer'],
    );
    assert.ok(object.metadata?.annotations?.['a.example.com/last-handled-configuration']);
    assert.ok(object.metadata?.annotations?.['b.example.com/last-handled-configuration']);

    await a.op.stop(); // the other one goes on
    await patchObject(cluster.client, KopfExample, ref, { spec: { field: 'y' } });
    await b.capture.waitFor('Updating is processed: 1 succeeded; 0 failed.', { timeout: 30 });
    assert.deepEqual(calls.filter((c) => c.startsWith('a:')), ['a:A:x']);
    assert.deepEqual(calls.filter((c) => c.startsWith('b:')), ['b:B:x', 'b:B:y']);
    assert.ok(!a.capture.messages().some((m) => m.startsWith('Updating')), 'the stopped operator saw nothing more');
  } finally {
    await a.op.stop();
    await b.op.stop();
    // Release the stopped operator's finalizer, as its application would on a restart.
    await patchObject(cluster.client, KopfExample, ref, { metadata: { finalizers: null } }).catch(() => undefined);
    await deleteObject(cluster.client, KopfExample, ref).catch(() => undefined);
  }
});
