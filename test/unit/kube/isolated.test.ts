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

test('a broken kubeconfig fails the first request, saying why', async () => {
  await withKubeconfig('clusters: [unterminated', async () => {
    const client = KubeClient.fromDefault({ errorBackoffs: [] });
    try {
      await assert.rejects(client.request('GET', '/version'), /kubeconfig:/);
    } finally { client.close(); }
  });
});
