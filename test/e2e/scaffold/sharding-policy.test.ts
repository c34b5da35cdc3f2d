/**
 * The scaffold's deploy/sharding-policy.yaml on a real API server: the ValidatingAdmissionPolicy
 * API is served; the policy and its binding are accepted; then a user (anyone but the operator's
 * service account, even one whom RBAC lets do everything) can neither set, change nor remove the
 * ring's labels or its seal on a served object, nor create one with them, while the rest of the
 * object stays theirs to change; the ring's own writes (an assignment with its seal, a drain, an
 * acknowledgement), made as the operator's service account, pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULTS, scaffold } from '../../../create/index.ts';
import {
  ApiError, KubeClient, kubeConfigCredentials, type CredentialSource,
} from '../../../runtime/kube/index.ts';
import { drainLabel, sealAnnotation, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import { useCluster } from '../use-cluster.ts';

const cluster = useCluster({ crds: [] });
const OPERATOR = 'system:serviceaccount:my-op:my-op';
const POLICIES = '/apis/admissionregistration.k8s.io/v1';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const SHARD = shardLabel('my-op'), DRAIN = drainLabel('my-op'), SEAL = sealAnnotation('my-op');
let prepared: Promise<string> | undefined;

/** The scaffold's policy, as text, with its CRD installed (once, on the first test's call). */
function scaffolded(): Promise<string> {
  prepared ??= (async () => {
    const temp = mkdtempSync(join(tmpdir(), 'kopf-sharding-policy-'));
    try {
      const dir = join(temp, 'my-op');
      await scaffold({ ...DEFAULTS, dir, name: 'my-op', scope: 'Namespaced', install: false });
      const crd = parse(readFileSync(join(dir, 'crds', 'widgets.yaml'), 'utf8')) as Record<string, unknown>;
      await cluster.cp.installCrds([crd]);
      return readFileSync(join(dir, 'deploy', 'sharding-policy.yaml'), 'utf8');
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  })();
  return prepared;
}

/** A client of the admin's credentials, acting as `user` (in `system:masters`: RBAC allows it everything). */
function clientAs(user: string): KubeClient {
  const admin = kubeConfigCredentials(cluster.cp.kubeconfig);
  const source: CredentialSource = {
    get: async () => {
      const credentials = await admin.get();
      const headers = { ...credentials.headers, 'Impersonate-User': user, 'Impersonate-Group': 'system:masters' };
      return { ...credentials, headers };
    },
    invalidate: () => undefined,
  };
  return new KubeClient(source);
}

type Metadata = { labels?: Record<string, string | null>; annotations?: Record<string, string | null> };

async function patch(client: KubeClient, name: string, metadata: Metadata, dryRun = false): Promise<void> {
  const path = `${WIDGETS}/${name}${dryRun ? '?dryRun=All' : ''}`;
  await client.request('PATCH', path, { body: { metadata }, contentType: 'application/merge-patch+json' });
}

/** The status code of a refusal, or 200 if the request passed. */
async function outcome(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

test('the API server serves ValidatingAdmissionPolicy v1, and takes the scaffold\'s policy and binding', async () => {
  const discovery = await cluster.client.request<{ resources: { name: string }[] }>('GET', POLICIES);
  const served = discovery.resources.map((r) => r.name);
  assert.ok(served.includes('validatingadmissionpolicies'), served.join(', '));
  assert.ok(served.includes('validatingadmissionpolicybindings'), served.join(', '));
  const [policy, binding] = parseAllDocuments(await scaffolded()).map((doc) => doc.toJS() as object);
  await cluster.client.request('POST', `${POLICIES}/validatingadmissionpolicies`, { body: policy });
  await cluster.client.request('POST', `${POLICIES}/validatingadmissionpolicybindings`, { body: binding });
});

test('only the operator\'s service account sets, changes or removes the ring\'s labels and seals', async (t) => {
  await scaffolded();
  const user = clientAs('alice');
  const operator = clientAs(OPERATOR);
  t.after(() => { user.close(); operator.close(); });
  const body = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { greeting: 'hi' } };
  await user.request('POST', WIDGETS, { body: { ...body, metadata: { name: 'w1' } } });
  // The policy is in force once the API server has loaded it: a user's relabel (dry-run) is refused.
  const deadline = Date.now() + 60_000;
  while (await outcome(patch(user, 'w1', { labels: { [SHARD]: 'x' } }, true)) === 200) {
    assert.ok(Date.now() < deadline, 'the policy never came into force');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  // The ring's writes, as the operator: an assignment with its seal, a drain, an acknowledgement; another assignment.
  const assigned = (member: string, seal: string) => ({ labels: { [SHARD]: member }, annotations: { [SEAL]: seal } });
  assert.equal(await outcome(patch(operator, 'w1', assigned('m-1', 's1'))), 200);
  assert.equal(await outcome(patch(operator, 'w1', { labels: { [DRAIN]: 'true' } })), 200);
  const acknowledgement = { labels: { [SHARD]: null, [DRAIN]: null }, annotations: { [SEAL]: 'released' } };
  assert.equal(await outcome(patch(operator, 'w1', acknowledgement)), 200);
  assert.equal(await outcome(patch(operator, 'w1', assigned('m-2', 's2'))), 200);

  // A user's: refused, each of them.
  for (const metadata of [
    { labels: { [SHARD]: 'm-1' } }, { labels: { [SHARD]: null } }, { labels: { [DRAIN]: 'x' } },
    { labels: { [drainLabel('other-ring')]: 'x' } },
    { annotations: { [SEAL]: 's1' } }, { annotations: { [SEAL]: null } },
  ]) {
    assert.equal(await outcome(patch(user, 'w1', metadata)), 403, JSON.stringify(metadata));
  }
  const labelled = { ...body, metadata: { name: 'w2', labels: { [SHARD]: 'm-1' } } };
  assert.equal(await outcome(user.request('POST', WIDGETS, { body: labelled })), 403);
  // The rest of the object is the user's to change, the ring's labels and seal left as they are.
  assert.equal(await outcome(patch(user, 'w1', { labels: { app: 'shop' }, annotations: { note: 'n' } })), 200);
  const changed = { body: { spec: { greeting: 'hello' } }, contentType: 'application/merge-patch+json' };
  assert.equal(await outcome(user.request('PATCH', `${WIDGETS}/w1`, changed)), 200);
  const w1 = await user.request<{ metadata: Metadata }>('GET', `${WIDGETS}/w1`);
  assert.equal(w1.metadata.labels?.[SHARD], 'm-2');
  assert.equal(w1.metadata.annotations?.[SEAL], 's2');
});
