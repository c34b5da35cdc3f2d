/**
 * A real npm registry on loopback, for the tests that publish: verdaccio (pinned among the
 * workspace's devDependencies) on a free port, its config, storage and users in a folder of the
 * test's. This repository's packages are its own, never looked up upstream; every other package is
 * proxied from the registry npm is configured with, so that their dependencies resolve.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../ports.ts';
import { ROOT, ok, userEnv } from './packages.ts';

const VERDACCIO = join(ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
const OWN = ['kopf', 'kopf-gen', 'create-kopf-operator'];
const USER = 'kopf-release';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** An npm user config that names only this registry, with a token of a user allowed to publish. */
  readonly npmrc: string;
  /** What verdaccio printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export async function startRegistry(dir: string): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  const upstream = await npmConfig('registry');
  const proxy = await npmConfig('https-proxy');
  const cafile = await npmConfig('cafile');
  const port = await freePort();
  const config = join(dir, 'config.yaml');
  const own = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' };
  // JSON is YAML too.
  writeFileSync(config, JSON.stringify({
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd') } },
    uplinks: { upstream: { url: upstream, timeout: '120s', max_fails: 10, ...(proxy ? { https_proxy: proxy } : {}) } },
    packages: { ...Object.fromEntries(OWN.map((name) => [name, own])), '**': { access: '$all', proxy: 'upstream' } },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'warn' },
  }, null, 2));
  const env = userEnv(cafile ? { NODE_EXTRA_CA_CERTS: cafile } : {});
  const child = fork(VERDACCIO, ['--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  }
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await listening(child, exited, () => output);
    const url = `http://127.0.0.1:${port}/`;
    const npmrc = join(dir, 'npmrc');
    writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${await addUser(url)}\n`);
    return { url, npmrc, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Verdaccio tells a parent with an IPC channel when it listens. */
function listening(child: ReturnType<typeof fork>, exited: Promise<void>, output: () => string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const deadline = setTimeout(() => reject(new Error(`verdaccio did not listen in 60 s:\n${output()}`)), 60_000);
    child.on('message', (message: unknown) => {
      if (typeof message !== 'object' || message === null || !('verdaccio_started' in message)) return;
      clearTimeout(deadline);
      resolvePromise();
    });
    void exited.then(() => {
      clearTimeout(deadline);
      reject(new Error(`verdaccio exited before it listened:\n${output()}`));
    });
  });
}

/** A user made through npm's registry API, as `npm adduser` makes one; its token. */
async function addUser(url: string): Promise<string> {
  const password = randomBytes(12).toString('hex');
  const response = await fetch(new URL(`-/user/org.couchdb.user:${USER}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: USER, password, type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const body = await response.json() as { token?: unknown };
  if (response.status !== 201 || typeof body.token !== 'string') {
    throw new Error(`verdaccio did not add a user: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

/** A setting of the npm the user has (their config files, not the test runner's npm_config_*). */
async function npmConfig(key: string): Promise<string | undefined> {
  const value = (await ok('npm', ['config', 'get', key])).stdout.trim();
  return value === '' || value === 'null' || value === 'undefined' ? undefined : value;
}
