/**
 * `kopf run` stops when told to, even with a handler that does not end: after the exit timeout
 * the handler is cancelled through its `signal`; one that ends then is reported as cancelled and
 * nothing is written for it; one that does not is abandoned (a promise cannot be forced to end),
 * the operator says so, and the process exits 0 rather than wait for the handler's timers or be
 * killed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createObject, getObject } from '../../../runtime/kube/index.ts';
import { runOperator, type OperatorExit, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';

const cluster = useCluster();

/**
 * Runs `kopf run` on a fixture, brings it to the point `until` waits for, and stops it with
 * SIGTERM (killed after a minute if it lingered: the exit code would then be null).
 */
async function runAndStop(
  fixture: string,
  until: (operator: RunningOperator) => Promise<unknown>,
): Promise<OperatorExit> {
  const operator = runOperator({
    files: [join(import.meta.dirname, 'fixtures', fixture)],
    args: ['--standalone', '-n', 'default', '--verbose'],
    kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  try {
    await until(operator);
  } catch (error) {
    await operator.stop();
    throw error;
  }
  return operator.stop({ timeout: 60_000 });
}

/** Starts the watch, creates the object, and waits until its handler says it has started. */
function handlerStarted(name: string) {
  return async (operator: RunningOperator) => {
    await operator.waitFor('Starting the watch-stream for kopfexamples', { timeout: 30_000 });
    await createObject(cluster.client, KopfExample, { metadata: { name, namespace: 'default' }, spec: {} });
    await operator.waitFor(`[default/${name}] The ${name} handler has started.`, { timeout: 30_000 });
  };
}

test('SIGTERM ends the run with code 0 after the exit timeout, abandoning a handler that does not end', async () => {
  const exit = await runAndStop('endless.ts', handlerStarted('endless'));
  assert.equal(exit.exitCode, 0, exit.output);
  assert.match(exit.output, /Signal SIGTERM is received\. Operator is stopping\./);
  assert.doesNotMatch(exit.output, /Stop-flag is raised/, 'the signal is the reason given, once');
  assert.match(
    exit.output,
    /1 object\(s\) were still being handled 2 s after the stop began, and did not end when cancelled: they are left as they are, and their handlers run again when the objects are next processed\./, // lint-ignore: a regular expression cannot wrap
  );
});

test('SIGTERM cancels a handler that is still running after the exit timeout: it ends, and nothing is written for ' +
  'it', async () => {
  const exit = await runAndStop('cancellable.ts', handlerStarted('cancellable'));
  assert.equal(exit.exitCode, 0, exit.output);
  assert.match(
    exit.output,
    /\[default\/cancellable\] The cancellable handler ends: AbortError: The operator is stopping: its handlers are cancelled\./, // lint-ignore: a regular expression cannot wrap
  );
  assert.match(exit.output, /\[default\/cancellable\] Handler 'cancellable_fn' is cancelled\. Will escalate\./);
  assert.doesNotMatch(exit.output, /failed with an exception/);
  assert.doesNotMatch(exit.output, /were still being handled/);
  // A cancellation is no outcome: no retry is recorded, and the handler runs again when the
  // object is next processed (its state is as before the attempt: none).
  const object = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'cancellable' });
  assert.deepEqual(
    Object.keys(object.metadata?.annotations ?? {}).filter((key) => key.startsWith('kopf.zalando.org/')),
    [],
  );
  assert.equal(object.status, undefined);
});

test('SIGTERM is not held by a cleanup handler past process.ultimateExitingTimeout: it is cancelled, then ' +
  'left', async () => {
  const exit = await runAndStop(
    'stubborn-cleanup.ts',
    (operator) => operator.waitFor("Activity 'configure' succeeded.", { timeout: 30_000 }),
  );
  assert.equal(exit.exitCode, 0, exit.output);
  assert.match(exit.output, /The stubborn cleanup has started\./);
  assert.match(
    exit.output,
    /The cleanup handlers were still running 0\.5 s after the cleanup began, and did not end when cancelled: they are left as they are\./, // lint-ignore: a regular expression cannot wrap
  );
});
