import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, VersionApi } from '@kubernetes/client-node';
import { KUBERNETES_VERSION, lookUpBinaries, startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { portReservationDir } from '../../../runtime/testing/controlplane/cache.ts';
import { sendRequest } from '../../../runtime/testing/controlplane/requests.ts';
import { isRunning, listeningPorts } from '../../unit/testing/controlplane/host.ts';

let cp: ControlPlane;

before(async () => {
  cp = await startControlPlane();
});

after(async () => {
  await cp?.stop();
});

test('serves the pinned Kubernetes version on loopback', async () => {
  assert.match(cp.server, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.match(cp.etcdUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  const version = await cp.kubeconfig.makeApiClient(VersionApi).getCode();
  // Built: the pinned version; downloaded (envtest's prebuilt binaries): the patch of the pinned minor it had.
  const lookup = lookUpBinaries();
  const downloaded = lookup.sources['kube-apiserver'] === 'download' ? lookup.downloadedVersion : null;
  assert.equal(version.gitVersion, `v${downloaded ?? KUBERNETES_VERSION}`);
  assert.equal(`${version.major}.${version.minor}`, KUBERNETES_VERSION.split('.').slice(0, 2).join('.'));
});

test('its kubeconfig works with client-node, as an object and as a file', async () => {
  const names = (await cp.kubeconfig.makeApiClient(CoreV1Api).listNamespace()).items.map((ns) => ns.metadata?.name);
  assert.ok(names.includes('default'), names.join());
  const fromFile = new KubeConfig();
  fromFile.loadFromFile(cp.kubeconfigPath);
  assert.equal(fromFile.getCurrentCluster()?.server, cp.server);
  const created = await fromFile.makeApiClient(CoreV1Api).createNamespace(
    { body: { metadata: { name: 'from-file' } } }
  );
  assert.equal(created.metadata?.name, 'from-file');
});

test('the admin is in system:masters: allowed everything, RBAC notwithstanding', async () => {
  const review = await fetchJson('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } },
  });
  assert.equal((review as { status: { allowed: boolean } }).status.allowed, true);
});

test('other users: RBAC applies to them, and their groups count', async () => {
  const alice = cp.kubeconfigFor('alice', ['team-a']).makeApiClient(CoreV1Api);
  await assert.rejects(alice.listNamespace(), (error: { code?: number }) => error.code === 403);
  // Not the built-in `view`: its rules are aggregated by kube-controller-manager, which is absent.
  const rbac = cp.kubeconfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'namespace-reader' },
      rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'team-a-reads-namespaces' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team-a' }],
    },
  });
  // RBAC's authorizer reads from an informer: the binding takes a moment to apply.
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await alice.listNamespace();
      break;
    } catch (error) {
      if ((error as { code?: number }).code !== 403 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const bob = cp.kubeconfigFor('bob').makeApiClient(CoreV1Api);
  await assert.rejects(bob.listNamespace(), (error: { code?: number }) => error.code === 403);
});

test('stop() ends both processes, frees the ports and removes all state', async () => {
  const other = await startControlPlane();
  const pids = [other.apiServerPid, other.etcdPid];
  const ports = [new URL(other.server).port, new URL(other.etcdUrl).port].map(Number);
  assert.ok(pids.every(isRunning));
  assert.ok(existsSync(other.dir) && existsSync(other.kubeconfigPath));
  const reservations = (): string[] => readdirSync(portReservationDir()).filter(
    (f) => ports.some((p) => f === `port-${p}`)
  );
  assert.equal(reservations().length, 2);

  await other.stop();
  assert.ok(!pids.some(isRunning), 'no process left');
  assert.ok(!existsSync(other.dir), 'no state left');
  const listening = listeningPorts();
  assert.ok(!ports.some((port) => listening.has(port)), 'nothing listens on its ports');
  assert.deepEqual(reservations(), []);
  await other.stop(); // idempotent
});

test('`await using` stops it at the end of the block', async () => {
  let pids: number[];
  {
    await using scoped = await startControlPlane();
    pids = [scoped.apiServerPid, scoped.etcdPid];
    assert.ok(pids.every(isRunning));
  }
  assert.ok(!pids.some(isRunning));
});

async function fetchJson(method: string, path: string, body: unknown): Promise<unknown> {
  const response = await sendRequest(cp.credentials, method, path, { body });
  assert.ok(response.status < 300, response.text);
  return JSON.parse(response.text);
}
