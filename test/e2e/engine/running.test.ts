/**
 * Timers and daemons under `kopf run`, as a test of an operator drives them with `runOperator`:
 * waiting for a daemon's log line and for a timer's writes to the status, then stopping with
 * SIGTERM, which tells the daemon that the operator is exiting. No sleeps: lines and watches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createObject, deleteObject } from '../../../runtime/kube/index.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const cluster = useCluster();

test('runOperator waits for a daemon\'s line and a timer\'s status writes; SIGTERM stops the daemon with its ' +
  'reason', async (t) => {
  t.after(
    () => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'ticking' }).catch(() => undefined)
  );
  const operator = runOperator({
    files: [join(import.meta.dirname, 'fixtures', 'ticking.ts')],
    args: ['--standalone', '-n', 'default', '--verbose'],
    kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  try {
    await operator.waitFor('Starting the watch-stream for kopfexamples');
    await createObject(cluster.client, KopfExample, { metadata: { name: 'ticking', namespace: 'default' }, spec: {} });
    await operator.waitFor('[default/ticking] The companion has started.');
    // Each call reads the status its previous call wrote: three calls, three writes, in order.
    const counted = await operator.waitForObject(
      KopfExample,
      { name: 'ticking' },
      (o) => Number((o?.status?.counter as { calls?: number } | undefined)?.calls) >= 3,
    );
    assert.ok(counted);
    await operator.waitFor("[default/ticking] Timer 'counter' succeeded.", { count: 3 });
  } catch (error) {
    await operator.stop();
    throw error;
  }
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, exit.output);
  assert.match(exit.output, /\[default\/ticking\] The companion stops: operator exiting\./);
  assert.match(
    exit.output,
    /\[default\/ticking\] Daemon 'companion' has exited on request and will not be retried or restarted\./,
  );
});

test('waitForObject fails at once, with the last lines, when the operator exits first', async () => {
  const operator = runOperator(
    { command: [process.execPath, '-e', 'console.log("bye")'], kubeconfigPath: cluster.cp.kubeconfigPath }
  );
  await assert.rejects(
    operator.waitForObject(KopfExample, { name: 'never' }, () => false, { timeout: 60_000 }),
    /exited \(code 0, signal null\) before the expected state of KopfExample never[\s\S]*\| bye/,
  );
});
