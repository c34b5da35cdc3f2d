/**
 * 19-versions on a local control plane: the operator sets its conversion webhook in the CRD, and
 * the API server converts through it — a gadget made in v1alpha1 is read in v1, one made in v1 is
 * listed in v1alpha1, a read-modify-write through v1alpha1 (as `kubectl edit` does) keeps v1's
 * `paused`, and the handler on v1alpha1 sees its objects in that version. `kubectl get` prints
 * both versions. There is no Kopf twin: Kopf has no conversion webhooks (docs/versions.md).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runOperator } from 'kopf/testing';
import { tracebackIn } from '../../test/e2e/rules.ts';
import { useCluster } from '../../test/e2e/use-cluster.ts';
import { ConflictError, getObject, listObjects, replaceObject } from '../../runtime/kube/index.ts';
import { Gadget } from './generated/index.ts';
import * as v1alpha1 from './generated/example.com/v1alpha1.ts';

const cluster = useCluster({ crds: [join(import.meta.dirname, 'crd.yaml')] });
const ref = (name: string) => ({ namespace: 'default', name });

/** The API server takes the CRD's new conversion in a while: reads in v1alpha1 until one converts. */
async function untilConverting(name: string): Promise<v1alpha1.Gadget> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await getObject(cluster.client, v1alpha1.Gadget, ref(name)).catch((e: Error) => e);
    if (!(read instanceof Error) && read.spec?.size !== undefined) return read;
    if (Date.now() > deadline) throw new Error(`The API server does not convert through the webhook: ${String(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('19-versions: v1alpha1 and v1 of one gadget, through the operator\'s conversion webhook', async () => {
  const { cp, client } = cluster;
  const operator = runOperator({
    files: [join(import.meta.dirname, 'example.ts')],
    args: ['--standalone', '--namespace', 'default', '--verbose'],
    kubeconfigPath: cp.kubeconfigPath,
  });
  try {
    await operator.waitFor(/Reconfiguring the conversion webhook of the CRD gadgets\.example\.com\./);
    const made = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: ref('big'),
      spec: { replicas: 5, color: 'red', paused: true } } as const;
    await client.request('POST', '/apis/example.com/v1/namespaces/default/gadgets', { body: made });
    const old = await untilConverting('big');
    assert.deepEqual(old.spec, { size: 'large', colour: 'red' });

    // As `kubectl edit gadgets.v1alpha1.example.com`: read, change, write the whole object back;
    // again if the operator wrote to it meanwhile (its handler's results and progress).
    for (let gadget = old; ;) {
      const edited = { ...gadget, spec: { ...gadget.spec, colour: 'blue' as const } };
      const written = await replaceObject(client, v1alpha1.Gadget, edited).catch((error: unknown) => {
        if (error instanceof ConflictError) return null;
        throw error;
      });
      if (written) break;
      gadget = await getObject(client, v1alpha1.Gadget, ref('big'));
    }
    const hub = await getObject(client, Gadget, ref('big'));
    assert.deepEqual(hub.spec, { replicas: 5, color: 'blue', paused: true });

    const small = { apiVersion: 'example.com/v1alpha1', kind: 'Gadget', metadata: ref('small'),
      spec: { size: 'small', colour: 'green' } } as const;
    await client.request('POST', '/apis/example.com/v1alpha1/namespaces/default/gadgets', { body: small });
    assert.deepEqual((await getObject(client, Gadget, ref('small'))).spec, { replicas: 1, color: 'green' });
    const listed = await listObjects(client, v1alpha1.Gadget, { namespace: 'default' });
    assert.deepEqual(listed.items.map((g) => [g.metadata?.name, g.spec?.size]), [['big', 'large'], ['small', 'small']]);

    const kubectl = cp.binaries.kubectl;
    if (kubectl) {
      const get = (resource: string) => promisify(execFile)(kubectl,
        ['--kubeconfig', cp.kubeconfigPath, 'get', resource, '-n', 'default', '-o', 'jsonpath={.items[*].apiVersion}']);
      assert.equal((await get('gadgets.v1alpha1.example.com')).stdout, 'example.com/v1alpha1 example.com/v1alpha1');
      assert.equal((await get('gadgets.v1.example.com')).stdout, 'example.com/v1 example.com/v1');
    }
    await operator.waitFor(/Seen as example\.com\/v1alpha1: size small\./);
    await operator.waitFor(/A gadget of 1 replicas in green\./);
  } finally {
    await operator.stop();
  }
  const exit = await operator.exited;
  const context = `\n--- operator output ---\n${exit.output}\n---`;
  assert.equal(exit.exitCode, 0, `the operator exited with ${exit.exitCode}${context}`);
  assert.equal(tracebackIn(exit.output), null, `a traceback in the output${context}`);
  assert.doesNotMatch(exit.output, /conversion of .* failed/, `a conversion failed${context}`);
});
