import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane } from '../../../runtime/testing.ts';

test('control planes started at the same time run side by side, each with its own data', async () => {
  const [a, b] = await Promise.all([startControlPlane(), startControlPlane()]);
  try {
    assert.notEqual(a.server, b.server);
    assert.notEqual(a.etcdUrl, b.etcdUrl);
    assert.notEqual(a.dir, b.dir);
    const apiA = a.kubeconfig.makeApiClient(CoreV1Api);
    const apiB = b.kubeconfig.makeApiClient(CoreV1Api);
    await apiA.createNamespace({ body: { metadata: { name: 'only-in-a' } } });
    const inB = (await apiB.listNamespace()).items.map((ns) => ns.metadata?.name);
    assert.ok(!inB.includes('only-in-a'));
    // Each trusts only its own serving CA: the credentials are not interchangeable.
    assert.notEqual(a.credentials.ca, b.credentials.ca);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
