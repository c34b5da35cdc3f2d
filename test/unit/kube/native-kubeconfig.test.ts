/**
 * The default configuration read without client-node: kubeconfigs of tokens, certificates, basic
 * credentials and exec plugins yield what client-node reads of them, with no child process and
 * no client-node in the operator; auth providers still go to client-node in its child.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  defaultKubeConfigCredentials, nativeDefaultCredentials,
} from '../../../runtime/kube/credentials/kubeconfig.ts';
import type { Credentials } from '../../../runtime/kube/credentials/credentials.ts';

const root = join(import.meta.dirname, '../../..');

/** Files written into a fresh directory (`DIR` in their text names it); KUBECONFIG lists the `kubeconfigs`. */
async function withFiles<T>(
  files: Record<string, string>, kubeconfigs: readonly string[], fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-native-'));
  const saved = process.env.KUBECONFIG;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text.replaceAll('DIR', dir));
  process.env.KUBECONFIG = kubeconfigs.map((name) => join(dir, name)).join(delimiter);
  try {
    return await fn(dir);
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG; else process.env.KUBECONFIG = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}

const pem = (what: string) => `-----BEGIN ${what}-----\nMIIB${what.length}\n-----END ${what}-----\n`;
const base64 = (text: string) => Buffer.from(text).toString('base64');

const cases: [string, Record<string, string>, string[]][] = [
  ['a token, a CA in data, a namespace', {
    config: `
clusters: [{ name: c, cluster: { server: 'https://10.0.0.1:6443/', certificate-authority-data: ${base64(pem('CA'))} } }]
users: [{ name: u, user: { token: secret-1 } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: team-a } }]
current-context: x
`,
  }, ['config']],
  ['client certificates in files relative to the kubeconfig, a server name, impersonation', {
    'ca.crt': pem('CA'), 'client.crt': pem('CERT'), 'client.key': pem('KEY'),
    config: `
clusters: [{ name: c, cluster: { server: 'https://k', certificate-authority: ca.crt, tls-server-name: kube } }]
users: [{ name: u, user: { client-certificate: client.crt, client-key: DIR/client.key, as: admin } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  }, ['config']],
  ['basic credentials, TLS unverified, a token file', {
    token: 'from-file\n',
    config: `
clusters: [{ name: c, cluster: { server: 'https://k', insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { username: alice, password: p4ss } }, { name: v, user: { token-file: DIR/token } }]
contexts: [{ name: x, context: { cluster: c, user: u } }, { name: y, context: { cluster: c, user: v } }]
current-context: x
`,
  }, ['config']],
  ['several files: the last current context wins, entries of all files are found', {
    a: `
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:8001' } }]
users: [{ name: u, user: { token: a } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
    b: `
users: [{ name: v, user: { client-certificate-data: ${base64(pem('CERT'))}, client-key-data: ${base64(pem('KEY'))} } }]
contexts: [{ name: y, context: { cluster: c, user: v, namespace: b } }]
current-context: y
`,
  }, ['a', 'b']],
  ['an exec plugin', {
    config: `
clusters: [{ name: c, cluster: { server: 'https://k' } }]
users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ${process.execPath},
  args: ['-e', 'console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential",
    status: { token: "from-plugin" } }))'] } } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  }, ['config']],
];

test('tokens, certificates, basic credentials, exec plugins: read as client-node reads them', async () => {
  const comparable = ({ agent, expiresAt, ...rest }: Credentials) => ({ ...rest, expires: expiresAt !== undefined });
  for (const [title, files, kubeconfigs] of cases) {
    await withFiles(files, kubeconfigs, async () => {
      const native = await nativeDefaultCredentials();
      assert.ok(native, `${title}: read without client-node`);
      const expected = await defaultKubeConfigCredentials(new KubeConfig());
      assert.deepEqual(comparable(await native.get()), comparable(expected), title);
    });
  }
});

test('a context with another user and a broken entry fail as client-node fails', async () => {
  const files = {
    config: `
clusters: [{ name: c, cluster: { server: 'https://k' } }, { name: d, cluster: {} }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  };
  await withFiles(files, ['config'], async () => {
    const native = await nativeDefaultCredentials().catch((error: Error) => error.message);
    const expected = await defaultKubeConfigCredentials(new KubeConfig()).catch((error: Error) => error.message);
    assert.equal(typeof native, 'string');
    assert.equal(native, expected);
    assert.match(String(native), /clusters\[1\]\.cluster\.server is missing$/);
  });
});

test('an auth provider is left to client-node', async () => {
  const files = {
    config: `
clusters: [{ name: c, cluster: { server: 'https://k' } }]
users: [{ name: u, user: { auth-provider: { name: gcp, config: { access-token: t, expiry: '2999-01-01T00:00:00Z' } } }
  }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  };
  await withFiles(files, ['config'], async () => assert.equal(await nativeDefaultCredentials(), undefined));
});

/**
 * What a fresh process does to read the default credentials: how many child processes it forks,
 * whether it loads client-node itself, and the Authorization header it ends with.
 */
interface FreshRead { forks: number; clientNode: boolean; authorization?: string }

function readInFreshProcess(dir: string, kubeconfig: string): FreshRead {
  const script = `
    const { registerHooks, syncBuiltinESMExports } = await import('node:module');
    const childProcess = (await import('node:child_process')).default;
    let forks = 0;
    const fork = childProcess.fork;
    childProcess.fork = (...args) => { forks += 1; return fork(...args); };
    syncBuiltinESMExports();
    const resolved = [];
    registerHooks({ resolve: (specifier, context, next) => {
      const found = next(specifier, context);
      resolved.push(found.url);
      return found;
    } });
    const isolated = ${JSON.stringify(join(root, 'runtime/kube/credentials/isolated.ts'))};
    const { isolatedDefaultCredentials } = await import(isolated);
    const credentials = await isolatedDefaultCredentials().get();
    const clientNode = resolved.some((url) => url.includes('/@kubernetes/client-node/'));
    console.log(JSON.stringify({ forks, clientNode, authorization: credentials.headers.Authorization }));`;
  // A file, not `-e`: the child inherits the options of this process, and `--input-type` would break it.
  const file = join(dir, 'probe.mjs');
  writeFileSync(file, script);
  const output = execFileSync(process.execPath, [file], {
    encoding: 'utf8', env: { ...process.env, KUBECONFIG: join(dir, kubeconfig) },
  });
  return JSON.parse(output) as FreshRead;
}

test('a plain kubeconfig costs no child process and no client-node; an auth provider still does', async () => {
  const files = {
    plain: `
clusters: [{ name: c, cluster: { server: 'https://k' } }]
users: [{ name: u, user: { token: plain-token } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
    gcp: `
clusters: [{ name: c, cluster: { server: 'https://k' } }]
users: [{ name: u, user: {
  auth-provider: { name: gcp, config: { access-token: gcp-token, expiry: '2999-01-01T00:00:00Z' } } } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  };
  await withFiles(files, [], async (dir) => {
    assert.deepEqual(
      readInFreshProcess(dir, 'plain'),
      { forks: 0, clientNode: false, authorization: 'Bearer plain-token' },
    );
    assert.deepEqual(
      readInFreshProcess(dir, 'gcp'),
      { forks: 1, clientNode: false, authorization: 'Bearer gcp-token' },
      'client-node reads the auth provider in its child, not in this process',
    );
  });
});
