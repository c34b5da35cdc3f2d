import assert from 'node:assert/strict';
import { Pods } from '../../runtime/structs/builtins.ts';
import { testExample } from '../../test/e2e/rules.ts';
import { freePort } from '../../test/e2e/ports.ts';

/** A pod for the event handler to start its background task for (nothing runs it: no kubelet). */
const POD = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hooks-pod', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'none' }] },
};

const PORT = await freePort();

testExample(import.meta.dirname, {
  args: ['--liveness', `http://127.0.0.1:${PORT}/healthz`],
  beforeStart: async (cluster) => { if (!(await cluster.find(Pods, POD.metadata))) await cluster.create(Pods, POD); },
  startupStopWords: ['Served by the background task.'],
  // Kopf's counts; cleanup_fn's is checked below, as it runs only once the operator is stopped.
  successCounts: { startup_fn_simple: 1, startup_fn_retried: 1 },
  afterCreation: async () => {
    const response = await fetch(`http://127.0.0.1:${PORT}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { tasks_count: 1, monitored_objects: { default: ['hooks-pod'] } });
  },
  check: ({ output }) => {
    assert.equal(output.match(/Activity 'cleanup_fn' succeeded\./g)?.length, 1, output);
    assert.match(output, /Going to succeed in 1s/);
    assert.match(output, /Starting retried\.\.\./);
    assert.match(output, /Logging in in 2s\.\.\./);
    assert.match(output, /Initial authentication has finished\./);
    assert.match(output, /All pod-tasks are requested to stop\.\.\./);
  },
});
