/**
 * Credentials by the default loading rules (KUBECONFIG, ~/.kube/config, in-cluster). The pod's
 * service account and kubeconfigs of tokens, certificates, basic credentials and exec plugins are
 * read by this process itself (native-kubeconfig.ts). The rest (auth providers, proxies) is resolved
 * by `@kubernetes/client-node` in a short-lived child process: the library's generated API models
 * cost tens of megabytes of memory once imported (well over a hundred in the child, beside the
 * operator's own, at every start), and an operator needs none of them: it needs only what the
 * kubeconfig yields (server, TLS material, headers). The child hands those over as plain data and
 * exits, taking the library with it (a worker thread would not: the memory it used stays with the
 * process).
 *
 * Of the child's credentials, service-account style token files are re-read by this process itself
 * (they rotate every hour or so); everything else that expires asks the child again.
 */
import { readFile } from 'node:fs/promises';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CachedCredentials, KubeConfigError } from './credentials.ts';
import { defaultKubeConfigCredentials, nativeDefaultCredentials } from './kubeconfig.ts';
import type { CredentialSource, Credentials } from './credentials.ts';

/** What the worker sends back. */
export interface IsolatedResult {
  credentials?: Omit<Credentials, 'agent'>;
  /** The token file to re-read for fresh tokens, if the credentials use one. */
  tokenFile?: string;
  /** The kubeconfig needs a proxy agent, which cannot cross threads: load in-process instead. */
  proxied?: boolean;
  error?: string;
}

const TOKEN_FILE_REFRESH_MS = 60_000;

export function isolatedDefaultCredentials(): CredentialSource {
  let choosing: Promise<CredentialSource> | undefined;
  let chosen: CredentialSource | undefined;
  // Chosen at the first request, as a broken configuration is reported then; chosen again after a failure.
  const choose = () => choosing ??= chooseSource().then(
    (source) => (chosen = source),
    (error: unknown) => { choosing = undefined; throw error; },
  );
  return {
    get: () => chosen ? chosen.get() : choose().then((source) => source.get()),
    invalidate: (stale) => chosen?.invalidate(stale),
  };
}

async function chooseSource(): Promise<CredentialSource> {
  return await nativeDefaultCredentials() ?? helperCredentials();
}

/** Credentials from the child process, for what only client-node reads. */
function helperCredentials(): CredentialSource {
  let tokenFile: string | undefined;
  let last: Credentials | undefined;
  return new CachedCredentials(async () => {
    if (tokenFile && last) {
      const token = (await readFile(tokenFile, 'utf8')).trim();
      return {
        ...last,
        headers: { ...last.headers, Authorization: `Bearer ${token}` },
        expiresAt: Date.now() + TOKEN_FILE_REFRESH_MS,
      };
    }
    const result = await inWorker();
    if (result.error) throw new KubeConfigError(result.error);
    if (result.proxied || !result.credentials) return inProcess();
    tokenFile = result.tokenFile;
    last = { ...result.credentials, tls: { ...result.credentials.tls } };
    return last;
  });
}

function inWorker(): Promise<IsolatedResult> {
  return new Promise((resolve, reject) => {
    // `advanced` serialization carries the TLS material's Buffers as they are.
    const child = fork(
      fileURLToPath(new URL('./isolated-worker.ts', import.meta.url)),
      [],
      { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    child.once('message', (result) => { resolve(result as IsolatedResult); child.kill(); });
    child.once('error', reject);
    child.once(
      'exit',
      (code, signal) => reject(new Error(`the credentials helper exited (${signal ?? code}) before answering`)),
    );
  });
}

/** The rare case of a proxy in the kubeconfig: the library stays loaded, as it must. */
async function inProcess(): Promise<Credentials> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  return defaultKubeConfigCredentials(new KubeConfig());
}
