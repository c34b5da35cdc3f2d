/**
 * Default credentials resolved in a child process (client-node's loading rules, without keeping
 * client-node in the operator's memory): the token and the server come through; a service-account
 * style token file is re-read by the operator itself; a broken kubeconfig fails the first request
 * with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../../runtime/kube/client.ts';
import { KubeConfigError } from '../../../runtime/kube/credentials/credentials.ts';
import { sendJson, startServer } from './fake-server.ts';

function withKubeconfig<T>(text: string, fn: () => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-isolated-'));
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = join(dir, 'config');
  writeFileSync(process.env.KUBECONFIG, text.replaceAll('DIR', dir));
  return fn().finally(() => {
    if (saved === undefined) delete process.env.KUBECONFIG; else process.env.KUBECONFIG = saved;
    rmSync(dir, { recursive: true, force: true });
  });
}

const kubeconfig = (server: string, user: string) => `
apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: '${server}' } }]
users: [{ name: u, user: ${user} }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: team-a } }]
current-context: x
`;

test('the default kubeconfig is resolved out of process: server and token arrive', async () => {
  const seen: (string | undefined)[] = [];
  const server = await startServer((req, res) => { seen.push(req.headers.authorization as string | undefined); sendJson(res, 200, { gitVersion: 'v1.36.3' }); });
  try {
    await withKubeconfig(kubeconfig(server.url, '{ token: secret-1 }'), async () => {
      const client = KubeClient.fromDefault({ errorBackoffs: [] });
      try {
        assert.deepEqual(await client.request('GET', '/version'), { gitVersion: 'v1.36.3' });
        assert.equal(await client.credentialsNamespace(), 'team-a', "the context's namespace comes along (for events about cluster-scoped objects)");
      } finally { client.close(); }
    });
    assert.deepEqual(seen, ['Bearer secret-1']);
  } finally {
    await server.close();
  }
});

test('a token file is re-read by the operator after a 401, without asking client-node again', async () => {
  const seen: (string | undefined)[] = [];
  const server = await startServer((req, res) => {
    seen.push(req.headers.authorization as string | undefined);
    if (req.headers.authorization === 'Bearer old') sendJson(res, 401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'no' });
    else sendJson(res, 200, {});
  });
  try {
    await withKubeconfig(kubeconfig(server.url, "{ auth-provider: { name: tokenFile, config: { tokenFile: 'DIR/token' } } }"), async () => {
      writeFileSync(process.env.KUBECONFIG!.replace(/config$/, 'token'), 'old');
      const client = KubeClient.fromDefault({ errorBackoffs: [] });
      try {
        await client.request('GET', '/version').catch(() => undefined); // loads 'old', gets 401, refreshes and retries once
        writeFileSync(process.env.KUBECONFIG!.replace(/config$/, 'token'), 'new');
        await client.request('GET', '/version');
      } finally { client.close(); }
    });
    assert.equal(seen[0], 'Bearer old');
    assert.equal(seen.at(-1), 'Bearer new');
  } finally {
    await server.close();
  }
});

/** The error of the first request with the default credentials. */
async function firstError(): Promise<Error> {
  const client = KubeClient.fromDefault({ errorBackoffs: [] });
  try {
    await client.request('GET', '/version');
  } catch (error) {
    return error as Error;
  } finally { client.close(); }
  throw new Error('the request succeeded');
}

test('a broken kubeconfig fails the first request, saying which file and why', async () => {
  await withKubeconfig('clusters: [unterminated', async () => {
    const error = await firstError();
    assert.ok(error instanceof KubeConfigError);
    assert.match(error.message, /^kubeconfig \S+\/config \(KUBECONFIG\): /);
    assert.match(error.message, /unexpected end of the stream/);
  });
});

test('a kubeconfig without a usable context says what is missing', async () => {
  const contexts = 'contexts: [{ name: x, context: { cluster: c, user: u } }]\nusers: [{ name: u, user: { token: t } }]';
  const cases: [string, RegExp][] = [
    [`${contexts}\nclusters: []`, /no current context is set; choose one with `kubectl config use-context NAME` \(contexts: x\)$/],
    [`${contexts}\nclusters: []\ncurrent-context: y`, /the current context "y" is not defined \(contexts: x\)$/],
    [`${contexts}\nclusters: [{ name: d, cluster: { server: 'https://127.0.0.1:1' } }]\ncurrent-context: x`, /the context "x" names the cluster "c", which is not defined \(clusters: d\)$/],
  ];
  for (const [text, expected] of cases) {
    await withKubeconfig(text, async () => {
      const error = await firstError();
      assert.ok(error instanceof KubeConfigError, error.message);
      assert.match(error.message, /^kubeconfig \S+\/config \(KUBECONFIG\): /);
      assert.match(error.message, expected);
    });
  }
});

test('no configuration at all is an error, not a guess at localhost:8080', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kopf-home-'));
  const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
  delete process.env.KUBECONFIG;
  process.env.HOME = home;
  try {
    const error = await firstError();
    assert.ok(error instanceof KubeConfigError, error.message);
    assert.equal(error.message, `no Kubernetes configuration: KUBECONFIG is not set, ${join(home, '.kube', 'config')} does not exist, and this is not a pod with a service account. Set KUBECONFIG to a kubeconfig file.`);
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value;
    rmSync(home, { recursive: true, force: true });
  }
});
