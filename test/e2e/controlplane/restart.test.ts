import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { sendRequest } from '../../../runtime/testing/controlplane/requests.ts';
import { isRunning } from '../../unit/testing/controlplane/host.ts';

let cp: ControlPlane;

before(async () => {
  cp = await startControlPlane();
});

after(async () => {
  await cp?.stop();
});

async function createConfigMap(name: string): Promise<void> {
  await cp.kubeconfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({
    namespace: 'default', body: { metadata: { name }, data: { kept: 'yes' } },
  });
}

async function readConfigMap(name: string): Promise<string | undefined> {
  return (
    await cp.kubeconfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: 'default', name })
  ).data?.kept;
}

test('restartApiServer() keeps the port, the etcd and its data', async () => {
  await createConfigMap('before-restart');
  const { server, etcdUrl, etcdPid } = cp;
  const oldPid = cp.apiServerPid;
  await cp.restartApiServer();
  assert.notEqual(cp.apiServerPid, oldPid);
  assert.ok(!isRunning(oldPid));
  assert.equal(cp.server, server);
  assert.equal(cp.etcdUrl, etcdUrl);
  assert.equal(cp.etcdPid, etcdPid);
  assert.equal(await readConfigMap('before-restart'), 'yes');
});

test('a SIGKILLed apiserver comes back too; while it is down, clients are refused', async () => {
  await createConfigMap('before-kill');
  let refused: unknown;
  await cp.restartApiServer({
    signal: 'SIGKILL',
    whileDown: async () => {
      refused = await readConfigMap('before-kill').then(() => null, (error: unknown) => error);
    },
  });
  assert.match(String((refused as { cause?: unknown })?.cause ?? refused), /ECONNREFUSED/);
  assert.equal(await readConfigMap('before-kill'), 'yes');
  assert.equal(cp.crashError, null, 'an intended restart is no crash');
});

test('restartEtcd() keeps the data; the apiserver serves again through the same port', async () => {
  await createConfigMap('before-etcd-restart');
  const { etcdPid, apiServerPid, server } = cp;
  let whileDown = '';
  await cp.restartEtcd({
    signal: 'SIGKILL',
    whileDown: async () => {
      // The apiserver holds a write while its storage is away: a short client timeout ends it.
      const body = { metadata: { name: 'while-etcd-down' } };
      const options = { body, timeoutMs: 2000 };
      whileDown = await sendRequest(cp.credentials, 'POST', '/api/v1/namespaces/default/configmaps', options)
        .then((response) => `HTTP ${response.status}`, (error: unknown) => String(error));
    },
  });
  assert.notEqual(cp.etcdPid, etcdPid);
  assert.ok(!isRunning(etcdPid));
  assert.equal(cp.apiServerPid, apiServerPid, 'the apiserver kept running');
  assert.equal(cp.server, server);
  assert.doesNotMatch(whileDown, /HTTP 2\d\d/, 'writes do not succeed while etcd is down');
  assert.equal(await readConfigMap('before-etcd-restart'), 'yes');
  assert.equal(cp.crashError, null, 'an intended restart is no crash');
});
