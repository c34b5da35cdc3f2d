/**
 * Credentials from login handlers (Kopf's vault), against a fake API server that accepts some
 * tokens and rejects others with 401.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KubeClient,
  LoginError,
  Vault,
  credentialsOf,
  type ConnectionInfo,
  type LoginResults,
} from '../../../runtime/kube/index.ts';
import { sendJson, startServer, status, type FakeServer } from './fake-server.ts';

/** A server that answers 200 to the accepted bearer tokens and 401 to any other. */
async function serverAccepting(accepted: Set<string>): Promise<FakeServer> {
  return startServer((req, res) => {
    const token = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (accepted.has(token)) sendJson(res, 200, { kind: 'Namespace', token });
    else sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
  });
}

/** A vault whose login returns what `logins` gives, one call after another; the calls are counted. */
function vaultOf(server: FakeServer, ...logins: Record<string, Omit<ConnectionInfo, 'server'>>[]) {
  let calls = 0;
  const clock = { now: 0 };
  const vault = new Vault(async (): Promise<LoginResults> => {
    const results = logins[Math.min(calls++, logins.length - 1)] ?? {};
    return new Map(Object.entries(results).map(([id, info]) => [id, { server: server.url, ...info }]));
  }, { now: () => clock.now });
  const client = new KubeClient(vault, { errorBackoffs: [] });
  return { vault, client, clock, logins: () => calls };
}

test('the credentials of the highest priority are used; on a 401, the next ones', async () => {
  const server = await serverAccepting(new Set(['low']));
  const { client, logins } = vaultOf(
    server,
    { high: { token: 'high', priority: 10 }, low: { token: 'low', priority: 1 } },
  );
  try {
    assert.deepEqual(await client.request('GET', '/api/v1/namespaces/default'), { kind: 'Namespace', token: 'low' });
    assert.deepEqual(server.received.map((r) => r.headers.authorization), ['Bearer high', 'Bearer low']);
    await client.request('GET', '/api/v1/namespaces/default');
    assert.equal(server.received.at(-1)?.headers.authorization, 'Bearer low', 'the rejected ones are not tried again');
    assert.equal(logins(), 1);
  } finally {
    client.close();
    await server.close();
  }
});

test('when all credentials are rejected, the login runs again and its new credentials are used', async () => {
  const accepted = new Set(['first']);
  const server = await serverAccepting(accepted);
  const { client, logins } = vaultOf(server, { login_fn: { token: 'first' } }, { login_fn: { token: 'second' } });
  try {
    await client.request('GET', '/api/v1/namespaces/default');
    accepted.clear();
    accepted.add('second'); // the first token is revoked
    assert.deepEqual(await client.request('GET', '/api/v1/namespaces/default'), { kind: 'Namespace', token: 'second' });
    assert.equal(logins(), 2);
  } finally {
    client.close();
    await server.close();
  }
});

test('a login that returns the rejected credentials again, or none, ends in LoginError, not in a loop', async () => {
  const server = await serverAccepting(new Set());
  const same = vaultOf(server, { login_fn: { token: 'bad' } });
  const none = vaultOf(server, {});
  try {
    await assert.rejects(same.client.request('GET', '/api/v1/namespaces/default'), LoginError);
    assert.equal(same.logins(), 2, 'one login, and one more after the rejection');
    await assert.rejects(none.client.request('GET', '/api/v1/namespaces/default'), LoginError);
  } finally {
    same.client.close();
    none.client.close();
    await server.close();
  }
});

test('expired credentials are dropped: the login runs again, once for many waiting requests', async () => {
  const server = await serverAccepting(new Set(['old', 'new']));
  const { client, clock, logins } = vaultOf(
    server,
    { login_fn: { token: 'old', expiration: new Date(1000) } },
    { login_fn: { token: 'new' } },
  );
  try {
    assert.deepEqual(await client.request('GET', '/api/v1/namespaces/default'), { kind: 'Namespace', token: 'old' });
    clock.now = 1000;
    const answers = await Promise.all([1, 2, 3].map(() => client.request('GET', '/api/v1/namespaces/default')));
    assert.deepEqual(answers.map((a) => (a as { token: string }).token), ['new', 'new', 'new']);
    assert.equal(logins(), 2, 'one more login for all three requests');
  } finally {
    client.close();
    await server.close();
  }
});

test('connection info becomes request credentials as Kopf builds its headers', async () => {
  const server = { url: 'https://127.0.0.1:6443' };
  const of = async (info: Omit<ConnectionInfo, 'server'>) => (
    await credentialsOf({ server: server.url, ...info })
  ).headers['Authorization'];
  assert.equal(await of({ token: 't' }), 'Bearer t');
  assert.equal(await of({ scheme: 'Digest', token: 't' }), 'Digest t');
  assert.equal(await of({ scheme: 'Custom' }), 'Custom');
  assert.equal(await of({ username: 'u', password: 'p' }), `Basic ${Buffer.from('u:p').toString('base64')}`);
  assert.equal(await of({}), undefined);
  const pem = '-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n';
  const credentials = await credentialsOf(
    {
      server: server.url,
      caData: Buffer.from(pem).toString('base64'),
      insecure: true,
      defaultNamespace: 'ns',
      expiration: new Date(5000),
    }
  );
  assert.equal(String(credentials.tls.ca), pem);
  assert.equal(credentials.tls.rejectUnauthorized, false);
  assert.equal(credentials.namespace, 'ns');
  assert.equal(credentials.expiresAt, 5000);
  await assert.rejects(credentialsOf({ server: server.url, caPath: '/x', caData: pem }), /Both CA path & data are set/);
});
