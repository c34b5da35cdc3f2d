import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, kubeConfigCredentials } from '../../../runtime/kube/index.ts';
import { sendJson, startServer, status } from './fake-server.ts';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-kube-creds-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function kubeConfigOf(server: string, user: object): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

/** A credential plugin that issues `token-1`, `token-2`, … and counts its runs in a file. */
function writePlugin(dir: string, extra = ''): { command: string; args: string[]; runs: () => number } {
  const counter = join(dir, 'runs');
  writeFileSync(counter, '0');
  const script = join(dir, 'plugin.mjs');
  writeFileSync(script, `
    import { readFileSync, writeFileSync } from 'node:fs';
    const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
    writeFileSync(${JSON.stringify(counter)}, String(n));
    const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
    const status = { token: 'token-' + n + (process.env.SUFFIX ?? '')${extra} };
    process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status }));
  `);
  return { command: process.execPath, args: [script], runs: () => Number(readFileSync(counter, 'utf8')) };
}

test('an exec plugin provides the token; a 401 runs it again, once for all waiting requests', async (t) => {
  const dir = tempDir(t);
  const plugin = writePlugin(dir);
  const server = await startServer((req, res) => {
    if (req.headers.authorization === 'Bearer token-2-x') sendJson(res, 200, { ok: true });
    else sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
  });
  t.after(() => server.close());
  const kc = kubeConfigOf(
    server.url,
    {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin.command,
        args: plugin.args,
        env: [{ name: 'SUFFIX', value: '-x' }],
      }
    },
  );
  const client = KubeClient.fromKubeConfig(kc, { errorBackoffs: [] });
  t.after(() => client.close());

  const results = await Promise.all(Array.from({ length: 5 }, () => client.request('GET', '/api')));
  assert.deepEqual(results, Array(5).fill({ ok: true }));
  assert.equal(plugin.runs(), 2, 'the plugin ran once at first and once after the 401s');
  assert.deepEqual(
    new Set(server.received.map((r) => r.headers.authorization)),
    new Set(['Bearer token-1-x', 'Bearer token-2-x']),
  );
});

test('exec credentials are reused until shortly before they expire', async (t) => {
  const dir = tempDir(t);
  const expiring = `, expirationTimestamp: new Date(Date.now() + (n === 1 ? 1500 : 3600_000)).toISOString()`;
  const plugin = writePlugin(dir, expiring);
  const server = await startServer((req, res) => sendJson(res, 200, { token: req.headers.authorization }));
  t.after(() => server.close());
  const kc = kubeConfigOf(server.url, { exec: { command: plugin.command, args: plugin.args } });
  const source = kubeConfigCredentials(kc);
  const first = await source.get();
  assert.equal(first.headers.Authorization, 'Bearer token-1');
  assert.equal(await source.get(), first, 'cached while valid');
  assert.ok(first.expiresAt !== undefined && first.expiresAt < Date.now() + 1500, 'refreshed before the expiration');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, (first.expiresAt ?? 0) - Date.now()) + 10));
  const second = await source.get();
  assert.equal(second.headers.Authorization, 'Bearer token-2');
  assert.equal(await source.get(), second);
  assert.equal(plugin.runs(), 2);
});

test('a failing plugin fails the request with its stderr', async (t) => {
  const dir = tempDir(t);
  const script = join(dir, 'broken.mjs');
  writeFileSync(script, `process.stderr.write('please log in'); process.exit(3);`);
  const kc = kubeConfigOf('http://127.0.0.1:1', { exec: { command: process.execPath, args: [script] } });
  const client = KubeClient.fromKubeConfig(kc);
  await assert.rejects(client.request('GET', '/api'), /exited with 3: please log in/);
});

test('a plugin whose output is not an ExecCredential fails without quoting the output', async (t) => {
  const dir = tempDir(t);
  const outputs = [
    ['{"status":{"token":"SECRET-TOKEN"', /printed no valid ExecCredential JSON$/],
    [
      '{"status":{"token":{"value":"SECRET-TOKEN"}}}',
      /returned an ExecCredential whose status\.token is not a string$/,
    ],
  ] as const;
  for (const [index, [output, expected]] of outputs.entries()) {
    const script = join(dir, `odd-${index}.mjs`);
    writeFileSync(script, `process.stdout.write(${JSON.stringify(output)});`);
    const kc = kubeConfigOf('http://127.0.0.1:1', { exec: { command: process.execPath, args: [script] } });
    const client = KubeClient.fromKubeConfig(kc);
    const error = await client.request('GET', '/api').then(() => assert.fail('accepted'), (e: unknown) => e as Error);
    assert.match(error.message, expected);
    assert.doesNotMatch(inspect(error), /SECRET/, 'neither the message nor a cause quotes it');
  }
});

test('a plugin that is not installed says so, with the kubeconfig’s install hint', async () => {
  const kc = kubeConfigOf(
    'http://127.0.0.1:1',
    { exec: { command: 'kopf-no-such-plugin', installHint: 'Install it with `brew install kopf-no-such-plugin`.' } },
  );
  const client = KubeClient.fromKubeConfig(kc);
  await assert.rejects(
    client.request('GET', '/api'),
    {
      message: 'credential plugin kopf-no-such-plugin is not installed: not found on the PATH. Install it with ' +
        '`brew install kopf-no-such-plugin`.'
    },
  );
});

test('a service-account token file is read, and re-read after a 401 (rotation)', async (t) => {
  const dir = tempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'old-token\n');
  const server = await startServer((req, res) => {
    if (req.headers.authorization === 'Bearer new-token') sendJson(res, 200, { ok: true });
    else sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
  });
  t.after(() => server.close());
  const kc = kubeConfigOf(server.url, { authProvider: { name: 'tokenFile', config: { tokenFile } } });
  const client = KubeClient.fromKubeConfig(kc, { errorBackoffs: [] });
  t.after(() => client.close());

  await assert.rejects(client.request('GET', '/api'), (e: unknown) => (e as { status?: number }).status === 401);
  writeFileSync(tokenFile, 'new-token\n');
  assert.deepEqual(await client.request('GET', '/api'), { ok: true });
  // The first request: rejected, re-read (unchanged), rejected. The second: rejected, re-read, accepted.
  assert.deepEqual(
    server.received.map((r) => r.headers.authorization),
    ['Bearer old-token', 'Bearer old-token', 'Bearer old-token', 'Bearer new-token'],
  );
});

test('static tokens, basic auth and impersonation come from the kubeconfig', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 200, {}));
  t.after(() => server.close());
  const withToken = KubeClient.fromKubeConfig(kubeConfigOf(server.url, { token: 'static', impersonateUser: 'alice' }));
  const withBasic = KubeClient.fromKubeConfig(kubeConfigOf(server.url, { username: 'bob', password: 'secret' }));
  t.after(() => { withToken.close(); withBasic.close(); });
  await withToken.request('GET', '/api');
  await withBasic.request('GET', '/api');
  assert.equal(server.received[0].headers.authorization, 'Bearer static');
  assert.equal(server.received[0].headers['impersonate-user'], 'alice');
  assert.equal(server.received[1].headers.authorization, `Basic ${Buffer.from('bob:secret').toString('base64')}`);
});

test('several clients in one process keep their own credentials', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 200, {}));
  t.after(() => server.close());
  const a = KubeClient.fromKubeConfig(kubeConfigOf(server.url, { token: 'a' }));
  const b = KubeClient.fromKubeConfig(kubeConfigOf(server.url, { token: 'b' }));
  t.after(() => { a.close(); b.close(); });
  await a.request('GET', '/api');
  await b.request('GET', '/api');
  await a.request('GET', '/api');
  assert.deepEqual(server.received.map((r) => r.headers.authorization), ['Bearer a', 'Bearer b', 'Bearer a']);
  assert.deepEqual(a.requestCounts(), { get: 2 });
  assert.deepEqual(b.requestCounts(), { get: 1 });
});
