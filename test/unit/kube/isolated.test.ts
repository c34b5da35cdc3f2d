/**
 * Default credentials by client-node's loading rules, without keeping client-node in the operator's
 * memory (read natively, or in a child process: native-kubeconfig.test.ts tells which): the token
 * and the server come through; a service-account style token file is re-read by the operator
 * itself; a broken kubeconfig fails the first request with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
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

test('the default kubeconfig: server, token and namespace arrive', async () => {
  const seen: (string | undefined)[] = [];
  const server = await startServer(
    (req, res) => {
      seen.push(req.headers.authorization as string | undefined);
      sendJson(res, 200, { gitVersion: 'v1.36.3' });
    }
  );
  try {
    await withKubeconfig(kubeconfig(server.url, '{ token: secret-1 }'), async () => {
      const client = KubeClient.fromDefault({ errorBackoffs: [] });
      try {
        assert.deepEqual(await client.request('GET', '/version'), { gitVersion: 'v1.36.3' });
        assert.equal(
          await client.credentialsNamespace(),
          'team-a',
          "the context's namespace comes along (for events about cluster-scoped objects)",
        );
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
    if (req.headers.authorization === 'Bearer old')
      sendJson(res, 401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'no' });
    else sendJson(res, 200, {});
  });
  try {
    await withKubeconfig(kubeconfig(
      server.url,
      "{ auth-provider: { name: tokenFile, config: { tokenFile: 'DIR/token' } } }",
    ), async () => {
      writeFileSync(process.env.KUBECONFIG!.replace(/config$/, 'token'), 'old');
      const client = KubeClient.fromDefault({ errorBackoffs: [] });
      try {
        // loads 'old', gets 401, refreshes and retries once
        await client.request('GET', '/version').catch(() => undefined);
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
    assert.match(error.message, /^kubeconfig \S+\/config \(KUBECONFIG\): not valid YAML at 1:\d+: /);
  });
});

test('a kubeconfig that is not YAML is refused by reason and line:column, quoting none of its lines', async () => {
  const text = 'users:\n- name: u\n  user:\n    token: SECRET-TOKEN\n    password: [unclosed\ncontexts: []\n';
  await withKubeconfig(text, async () => {
    const error = await firstError();
    assert.ok(error instanceof KubeConfigError);
    assert.match(error.message, /^kubeconfig \S+\/config \(KUBECONFIG\): not valid YAML at 6:1: [^\n]+$/);
    assert.doesNotMatch(error.message, /SECRET|unclosed|password/);
  });
});

test('broken kubeconfigs are refused in one line that names the field, and never quote a value', async () => {
  const user = 'users: [{ name: u, user: { token: SECRET } }]';
  const context = 'contexts: [{ name: x, context: { cluster: c, user: u } }]\ncurrent-context: x';
  const cluster = "clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:1' } }]";
  const cases: [string, RegExp][] = [
    ['', /: the file is empty$/],
    ['- SECRET', /: not a kubeconfig: a mapping with clusters, users and contexts is expected$/],
    [`clusters: SECRET\n${user}\n${context}`, /: clusters must be a list$/],
    [
      `clusters: [{ name: c, cluster: { server: 42 } }]\n${user}\n${context}`,
      /: clusters\[0\]\.cluster\.server must be a string$/,
    ],
    [
      `${cluster}\nusers: [{ name: u, user: { token: [SECRET] } }]\n${context}`,
      /: users\[0\]\.user\.token must be a string$/,
    ],
    [
      `${cluster}\nusers: [{ name: u, user: { exec: { command: [SECRET] } } }]\n${context}`,
      /: users\[0\]\.user\.exec\.command must be a string$/,
    ],
    // A tag this parser lets through and client-node's refuses: its message quoted the lines around it.
    [
      `${cluster}\nusers: [{ name: u, user: { token: !custom SECRET } }]\n${context}`,
      /: not valid YAML at 2:\d+: unknown scalar tag/,
    ],
    [`${cluster}\nusers: [SECRET]\n${context}`, /: users\[0\] must be a mapping with a name and a user$/],
    [`${cluster}\n${user}\ncontexts: [{ name: x, context: { cluster: c, user: v } }]\ncurrent-context: x`,
      /: the context "x" names the user "v", which is not defined \(users: u\)$/],
    [`clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:1', certificate-authority: DIR/none.crt } ` +
      `}]\n${user}\n${context}`,
      /: the cluster "c" names the certificate-authority \S+\/none\.crt, which does not exist$/],
    [`${cluster}\nusers: [{ name: u, user: { client-certificate: DIR/none.crt, client-key-data: SECRET } ` +
      `}]\n${context}`,
      /: the user "u" names the client-certificate \S+\/none\.crt, which does not exist$/],
  ];
  for (const [text, expected] of cases) {
    await withKubeconfig(text, async () => {
      const error = await firstError();
      assert.ok(error instanceof KubeConfigError, error.message);
      assert.match(error.message, /^kubeconfig \S+\/config \(KUBECONFIG\): [^\n]+$/);
      assert.match(error.message, expected);
      assert.doesNotMatch(error.message, /SECRET/);
    });
  }
});

test('a kubeconfig file that does not exist says so', async () => {
  await withKubeconfig('', async () => {
    process.env.KUBECONFIG += '.missing';
    const error = await firstError();
    assert.ok(error instanceof KubeConfigError, error.message);
    assert.match(error.message, /^kubeconfig \S+\/config\.missing \(KUBECONFIG\): the file does not exist$/);
  });
});

test('of several kubeconfig files, the broken one is named', async () => {
  await withKubeconfig("clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:1' } }]", async () => {
    const broken = process.env.KUBECONFIG!.replace(/config$/, 'broken');
    writeFileSync(broken, 'users: 5');
    process.env.KUBECONFIG = [process.env.KUBECONFIG, broken].join(delimiter);
    const error = await firstError();
    assert.ok(error instanceof KubeConfigError, error.message);
    assert.ok(error.message.endsWith(`: ${broken}: users must be a list`), error.message);
  });
});

test('a kubeconfig without a usable context says what is missing', async () => {
  const contexts =
    'contexts: [{ name: x, context: { cluster: c, user: u } }]\nusers: [{ name: u, user: { token: t } }]';
  const cases: [string, RegExp][] = [
    [
      `${contexts}\nclusters: []`,
      /no current context is set; choose one with `kubectl config use-context NAME` \(contexts: x\)$/,
    ],
    [`${contexts}\nclusters: []\ncurrent-context: y`, /the current context "y" is not defined \(contexts: x\)$/],
    [
      `${contexts}\nclusters: [{ name: d, cluster: { server: 'https://127.0.0.1:1' } }]\ncurrent-context: x`,
      /the context "x" names the cluster "c", which is not defined \(clusters: d\)$/,
    ],
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
    assert.equal(
      error.message,
      `no Kubernetes configuration: KUBECONFIG is not set, ${join(home, '.kube', 'config')} does not exist, and ` +
        `this is not a pod with a service account. Set KUBECONFIG to a kubeconfig file.`,
    );
  } finally {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key]; else process.env[key] = value;
    rmSync(home, { recursive: true, force: true });
  }
});
