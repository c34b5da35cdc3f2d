/**
 * docs/security.md's admission policy against progress brought by an object ("Progress an object
 * brings with it"), read from the document itself and run on the local control plane's
 * kube-apiserver: a user's request that sets or changes a `kopf.zalando.org/` annotation is
 * refused, the operator's service account's passes, and a user's change of anything else passes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import { parseAllDocuments } from 'yaml';
import { startControlPlane, type ApiCredentials, type ControlPlane } from '../../../runtime/testing.ts';
import { CRD_YAML } from '../rules.ts';

const OPERATOR = 'system:serviceaccount:default:operator';
const OBJECTS = '/apis/kopf.dev/v1/namespaces/default/kopfexamples';
const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';

let cp: ControlPlane;

before(async () => {
  cp = await startControlPlane();
  await cp.installCrds([CRD_YAML]);
});

after(async () => {
  await cp?.stop();
});

/** The policy and its binding as docs/security.md gives them, for an operator in `default`. */
function documentedPolicy(): { kind: string }[] {
  const text = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'security.md'), 'utf8');
  const section = text.slice(text.indexOf('## Progress an object brings with it'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!.replace('NAMESPACE:OPERATOR', 'default:operator');
  return parseAllDocuments(block).map((doc) => doc.toJS() as { kind: string });
}

/** A request as `user` (impersonated, with every right, so that only the policy can refuse it). */
function send(
  credentials: ApiCredentials, user: string, method: string, path: string, body?: unknown,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, credentials.server), {
      method, ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false,
      headers: { 'content-type': type, 'Impersonate-User': user, 'Impersonate-Group': 'system:masters' },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function example(name: string, annotations: Record<string, string> = {}) {
  return { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name, annotations }, spec: { field: 'v' } };
}

test('the documented policy lets only the operator write kopf.zalando.org/ annotations', async () => {
  const as = (user: string, method: string, path: string, body?: unknown) =>
    send(cp.credentials, user, method, path, body);
  for (const object of documentedPolicy()) {
    const plural = object.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies'
      : 'validatingadmissionpolicybindings';
    const created = await as('admin', 'POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, object);
    assert.equal(created.status, 201, created.text);
  }
  const forged = example('forged', { [DIFF_BASE]: '{"spec":{"field":"v"}}\n' });
  // The API server takes the policy up on its own time, and says nothing when it has: a forged
  // creation (a dry run) is tried until it is refused.
  let refused = { status: 0, text: '' };
  for (let tries = 0; tries < 100 && refused.status !== 403 && refused.status !== 422; tries++) {
    refused = await as('jan', 'POST', `${OBJECTS}?dryRun=All`, forged);
    if (refused.status === 201) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.match(refused.text, /Only the operator writes kopf.zalando.org\/ annotations/);
  assert.equal((await as('jan', 'POST', OBJECTS, example('plain'))).status, 201, 'no annotation of ours');
  assert.equal((await as(OPERATOR, 'POST', OBJECTS, example('handled', { [DIFF_BASE]: '{}\n' }))).status, 201);
  const patch = (user: string, body: unknown) => as(user, 'PATCH', `${OBJECTS}/handled`, body);
  assert.equal((await patch('jan', { spec: { field: 'changed' } })).status, 200, 'a user\'s change of the spec');
  for (const annotations of [{ [DIFF_BASE]: '{"spec":{}}\n' }, { [DIFF_BASE]: null }, { 'kopf.zalando.org/x': '{}' }]) {
    const answer = await patch('jan', { metadata: { annotations } });
    assert.match(answer.text, /Only the operator writes/, JSON.stringify(annotations));
  }
  assert.equal((await patch(OPERATOR, { metadata: { annotations: { [DIFF_BASE]: null } } })).status, 200);
});
