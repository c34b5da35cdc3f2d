/**
 * A `kopf run` process killed (SIGKILL) at an exact point between the writes of one cycle, then
 * started again: nothing it had done is lost. The fault proxy holds the chosen request, so the
 * kill lands after the requests before it were answered and before it reached the API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createObject, getObject } from '../../../runtime/kube/index.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { useFaultProxy } from '../faults/use-proxy.ts';
import { STALL } from '../faults/proxy.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);

/** One creation handler whose result goes to `status.create_fn`; it prints a line on each call. */
const MINIMAL = join(import.meta.dirname, '../../../examples/01-minimal/example.ts');
const ARGS = ['--standalone', '-n', 'default', '--verbose'];
const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';

test('an operator killed between the result and the records of a success runs the handler again after a restart, ' +
  'and the result arrives', async () => {
  const proxy = await faultProxy();
  const name = 'killed-between-writes';
  // The second write to the object (or its status) of the creation is held: the first is done.
  const second = proxy.inject(
    { method: 'PATCH', path: new RegExp(`/kopfexamples/${name}(/status)?$`) },
    STALL,
    { nth: 2 },
  );
  const first = runOperator({ args: ARGS, files: [MINIMAL], kubeconfigPath: proxy.kubeconfigPath });
  try {
    await createObject(cluster.client, KopfExample, { metadata: { name, namespace: 'default' }, spec: { field: 'x' } });
    const exited = first.exited.then(
      () => { throw new Error(`The operator exited before its second write:\n${first.output}`); }
    );
    await Promise.race([second.hits.first, exited]);
    await first.stop({ signal: 'SIGKILL' });
  } finally {
    second.cut();
    await first.stop({ signal: 'SIGKILL' });
  }
  assert.equal(first.lines.filter((line) => line.includes('And here we are!')).length, 1, first.output);
  const between = await getObject(cluster.client, KopfExample, { namespace: 'default', name });
  assert.equal(
    between.metadata?.annotations?.[DIFF_BASE],
    undefined,
    'the records of the success are not on the object before its result',
  );

  const restarted = runOperator({ args: ARGS, files: [MINIMAL], kubeconfigPath: cluster.cp.kubeconfigPath });
  try {
    // Said once the cycle's writes are done (its "processed" line comes before them).
    await restarted.waitFor(/Handling cycle is finished, waiting for new changes\./, { timeout: 60_000 });
    assert.ok(restarted.lines.some((line) => line.includes('And here we are!')), 'the handler ran again');
    const after = await getObject(cluster.client, KopfExample, { namespace: 'default', name });
    assert.deepEqual((after.status as { create_fn?: unknown } | undefined)?.create_fn, { message: 'hello world' });
    assert.ok(after.metadata?.annotations?.[DIFF_BASE], 'the diff-base follows the result');
  } finally {
    await restarted.stop();
  }
});
