/**
 * Credentials from a `KubeConfig` (client-node's, or native-kubeconfig.ts's for the cases that need
 * nothing of client-node): its loading rules, contexts, CA data, client certificates, tokens and
 * auth providers, read through `applyToHTTPSOptions`. Two kinds of
 * expiring credentials are handled here instead, because client-node caches them where a 401 cannot
 * reach (its exec cache trusts `expirationTimestamp`, its token-file reader re-reads only every 60 s):
 * exec plugins and the in-cluster service-account token file.
 */
import { constants, existsSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Agent, RequestOptions } from 'node:https';
// Types only: the library is loaded by whoever made the KubeConfig (or by the isolated worker).
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import type { KubeConfigFileContent } from './kubeconfig-checks.ts';
import { NativeKubeConfig, needsClientNode, type KubeConfigView } from './native-kubeconfig.ts';
import { thrownText } from '../../structs/errors.ts';
import { CachedCredentials, KubeConfigError, unreadable } from './credentials.ts';
import type { CredentialSource, Credentials, TlsMaterial } from './credentials.ts';
import { runExecPlugin } from './exec-plugin.ts';
import type { ExecConfig } from './exec-plugin.ts';

export interface KubeConfigCredentialsOptions {
  /**
   * Seconds after which credentials that may change without notice (token files, auth providers)
   * are fetched again. Client-go and client-node re-read token files every 60 s.
   */
  refreshInterval?: number;
}

/** Refresh exec credentials this long before they expire, at most (and at most a tenth of their lifetime). */
const EXPIRY_MARGIN_MS = 60_000;

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const IN_CLUSTER = 'in-cluster configuration';

/**
 * Where the default configuration comes from by client-node's rules (KUBECONFIG, ~/.kube/config,
 * the pod's service account): the kubeconfig files to read (none in a pod), and its name for
 * messages. Where client-node would fall back to `http://localhost:8080` for want of any
 * configuration, this fails instead, as Kopf does: an operator aimed at no cluster is a mistake,
 * better said at once.
 */
function defaultConfiguration(): { files: string[]; source: string } {
  const home = join(homedir(), '.kube', 'config');
  const { KUBECONFIG } = process.env;
  const files = KUBECONFIG ? KUBECONFIG.split(delimiter).filter(Boolean) : existsSync(home) ? [home] : [];
  const source = KUBECONFIG ? `kubeconfig ${KUBECONFIG} (KUBECONFIG)`
    : files.length ? `kubeconfig ${home}`
    : existsSync(SERVICE_ACCOUNT_TOKEN) ? IN_CLUSTER
    : process.platform === 'win32' ? 'kubeconfig (default)' // client-node also looks into WSL there
    : undefined;
  if (source === undefined) {
    throw new KubeConfigError(
      `no Kubernetes configuration: KUBECONFIG is not set, ${home} does not exist, and this is not a pod with a ` +
        `service account. Set KUBECONFIG to a kubeconfig file.`
    );
  }
  return { files, source };
}

/**
 * The kubeconfig files read and checked (kubeconfig-checks.ts), or the first one's problem. The
 * checks need a YAML parser, loaded only when there are files: a pod's operator never needs it.
 */
async function checkedFiles(files: readonly string[], source: string): Promise<KubeConfigFileContent[]> {
  if (!files.length) return [];
  const { readKubeConfigFile } = await import('./kubeconfig-checks.ts');
  return files.map((path) => {
    const read = readKubeConfigFile(path);
    // The file is named where KUBECONFIG lists several; the source names a single one already.
    if (read.problem !== undefined)
      throw new KubeConfigError(`${source}: ${files.length > 1 ? `${path}: ` : ''}${read.problem}`);
    return { path, config: read.config };
  });
}

/** Loads the default configuration into client-node's `KubeConfig`, and says where it came from. */
async function loadDefaultKubeConfig(kc: KubeConfig): Promise<string> {
  const { files, source } = defaultConfiguration();
  await checkedFiles(files, source);
  try {
    kc.loadFromDefault();
  } catch (error) {
    throw withSource(source, error);
  }
  return source;
}

/**
 * The current context's credentials from the default configuration (`loadDefaultKubeConfig`);
 * whatever fails says which configuration it is about.
 */
export async function defaultKubeConfigCredentials(kc: KubeConfig): Promise<Credentials> {
  const source = await loadDefaultKubeConfig(kc);
  try {
    return await kubeConfigCredentials(kc).get();
  } catch (error) {
    throw withSource(source, error);
  }
}

/**
 * The default configuration's credentials read by this process without client-node
 * (native-kubeconfig.ts), or `undefined` where only client-node can read them. Whatever fails,
 * now or at a later refresh, says which configuration it is about.
 */
export async function nativeDefaultCredentials(): Promise<CredentialSource | undefined> {
  const { files, source } = defaultConfiguration();
  if (!files.length && source !== IN_CLUSTER) return undefined;
  const parsed = await checkedFiles(files, source);
  let credentials: CredentialSource;
  try {
    const kc = files.length ? NativeKubeConfig.fromFiles(parsed) : NativeKubeConfig.inCluster();
    if (needsClientNode(kc)) return undefined;
    credentials = kubeConfigCredentials(kc);
  } catch (error) {
    throw withSource(source, error);
  }
  return {
    get: () => credentials.get().catch((error: unknown) => { throw withSource(source, error); }),
    invalidate: (stale) => credentials.invalidate(stale),
  };
}

/** The error as a `KubeConfigError` that says which configuration it is about. */
function withSource(source: string, error: unknown): KubeConfigError {
  return new KubeConfigError(`${source}: ${yamlReason(error) ?? thrownText(error)}`);
}

/**
 * A YAML error of client-node's parser by its reason and position: its message goes on to quote
 * the file around the error, secrets included. (The files are checked before it reads them; this
 * is for whatever its parser refuses that the check let through.)
 */
function yamlReason(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'YAMLException') return undefined;
  const { reason, mark } = error as Error & { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  const position = typeof mark?.line === 'number' && typeof mark.column === 'number'
    ? ` at ${mark.line + 1}:${mark.column + 1}` : '';
  return `not valid YAML${position}: ${typeof reason === 'string' ? reason : 'unknown reason'}`;
}

export function kubeConfigCredentials(
  kc: KubeConfigView, options: KubeConfigCredentialsOptions = {},
): CredentialSource {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError(whyNoCluster(kc));
  const user = kc.getCurrentUser();
  const userName = kc.getContextObject(kc.getCurrentContext())?.user;
  if (userName && !user) {
    const users = kc.getUsers().map((item) => item.name).join(', ') || 'none';
    throw new KubeConfigError(
      `the context "${kc.getCurrentContext()}" names the user "${userName}", which is not defined (users: ${users})`
    );
  }
  const refreshMs = (options.refreshInterval ?? 60) * 1000;
  const exec = execConfigOf(user);
  const tokenFile = tokenFileOf(user);
  const plain = plainKubeConfig(kc, cluster, user, exec !== undefined || tokenFile !== undefined);
  const refreshesItself = user?.authProvider !== undefined && !tokenFile && !exec;

  return new CachedCredentials(async () => {
    await checkFiles(cluster, user);
    const opts: RequestOptions = { headers: {} };
    await plain.applyToHTTPSOptions(opts);
    const headers = headersOf(opts);
    const tls = tlsOf(opts);
    let expiresAt = refreshesItself ? Date.now() + refreshMs : undefined;
    if (exec) {
      const status = await runExecPlugin(exec, execClusterInfo(cluster));
      if (status.token) headers.Authorization = `Bearer ${status.token}`;
      if (status.clientCertificateData) tls.cert = status.clientCertificateData;
      if (status.clientKeyData) tls.key = status.clientKeyData;
      if (status.expirationTimestamp) expiresAt = refreshTime(Date.parse(status.expirationTimestamp));
    }
    if (tokenFile) {
      headers.Authorization = `Bearer ${(await readFile(tokenFile, 'utf8')).trim()}`;
      expiresAt = Date.now() + refreshMs;
    }
    const agent = cluster.proxyUrl ? (opts.agent as Agent | undefined) : undefined;
    const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace || undefined;
    return { server: cluster.server, headers, tls, agent, expiresAt, namespace } satisfies Credentials;
  });
}

/** Why the kubeconfig yields no cluster, in the words of its own fields. */
function whyNoCluster(kc: KubeConfigView): string {
  const names = (items: readonly { name: string }[]) => (
    items.length ? items.map((item) => item.name).join(', ') : 'none'
  );
  const current = kc.getCurrentContext();
  if (!current)
    return `no current context is set; choose one with \`kubectl config use-context NAME\` (contexts: ` +
      `${names(kc.getContexts())})`;
  const context = kc.getContextObject(current);
  if (!context) return `the current context "${current}" is not defined (contexts: ${names(kc.getContexts())})`;
  return `the context "${current}" names the cluster "${context.cluster}", which is not defined (clusters: ` +
    `${names(kc.getClusters())})`;
}

/**
 * The current cluster's and user's files can be read: else client-node's error would not say which field names them.
 */
async function checkFiles(cluster: Cluster, user: User | null): Promise<void> {
  const files: [string | undefined, string][] = [
    [cluster.caFile, `the cluster "${cluster.name}" names the certificate-authority`],
    [user?.certFile, `the user "${user?.name}" names the client-certificate`],
    [user?.keyFile, `the user "${user?.name}" names the client-key`],
  ];
  for (const [file, what] of files) {
    if (!file) continue;
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      throw new KubeConfigError(`${what} ${file}, which ${unreadable(error)}`);
    }
  }
}

function refreshTime(expiration: number): number | undefined {
  if (Number.isNaN(expiration)) return undefined;
  const now = Date.now();
  const margin = Math.min(EXPIRY_MARGIN_MS, Math.max(0, expiration - now) / 10);
  // An already-expired credential is used once rather than re-fetched in a tight loop; a 401 refreshes it.
  return Math.max(now + 1000, expiration - margin);
}

function execConfigOf(user: User | null): ExecConfig | undefined {
  const candidate: unknown = user?.exec ?? user?.authProvider?.config?.exec;
  if (candidate && typeof candidate === 'object' && typeof (candidate as ExecConfig).command === 'string')
    return candidate as ExecConfig;
  return undefined;
}

export function tokenFileOf(user: User | null): string | undefined {
  const file: unknown = user?.authProvider?.config?.tokenFile;
  return typeof file === 'string' && file ? file : undefined;
}

/**
 * A KubeConfig with the same cluster and user minus what this module handles itself, so that
 * client-node neither spawns the exec plugin nor reads the token file a second time. Plain-HTTP
 * servers (`kubectl proxy`, test servers) are allowed: client-node refuses them unless TLS
 * verification is off, which means nothing without TLS.
 */
function plainKubeConfig(
  kc: KubeConfigView, cluster: Cluster, user: User | null, stripAuth: boolean,
): KubeConfigView {
  const plain = new (kc.constructor as new () => KubeConfigView)();
  const plainCluster: Cluster = cluster.server.startsWith('http:') ? { ...cluster, skipTLSVerify: true } : cluster;
  const plainUser: User = user ? (stripAuth ? { ...user, exec: undefined, authProvider: undefined } : user) : {
    name: 'anonymous'
  };
  plain.loadFromClusterAndUser(plainCluster, plainUser);
  return plain;
}

function headersOf(opts: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  return headers;
}

function tlsOf(opts: RequestOptions): TlsMaterial {
  const tls: TlsMaterial = {};
  if (opts.ca) tls.ca = opts.ca as string | Buffer;
  if (opts.cert) tls.cert = opts.cert as string | Buffer;
  if (opts.key) tls.key = opts.key as string | Buffer;
  if (opts.pfx) tls.pfx = opts.pfx as string | Buffer;
  if (opts.passphrase) tls.passphrase = opts.passphrase;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  if (opts.servername) tls.servername = opts.servername;
  return tls;
}

function execClusterInfo(cluster: Cluster) {
  return {
    server: cluster.server,
    ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
    ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
  };
}
