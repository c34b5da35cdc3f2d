/**
 * The default configuration read by this process itself, where client-node would add nothing but
 * its weight: the pod's service account, and kubeconfig files whose current user has a token,
 * basic credentials, client certificates or an exec plugin (the plugin is run by exec-plugin.ts
 * either way). Clusters, users and contexts are read as client-node reads them: the same fields,
 * the same merging of several files, the same paths relative to the file, the same errors. What
 * only client-node can do (auth providers such as OIDC, Azure or GCP; proxies) is left to it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type { RequestOptions } from 'node:https';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { isMapping } from '../../structs/diffs.ts';
import type { KubeConfigFileContent } from './kubeconfig-checks.ts';

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** What the credentials read of a kubeconfig: client-node's `KubeConfig` has it, and so has `NativeKubeConfig`. */
export interface KubeConfigView {
  getCurrentContext(): string;
  getContextObject(name: string): Context | null;
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): User | null;
  getClusters(): Cluster[];
  getUsers(): User[];
  getContexts(): Context[];
  loadFromClusterAndUser(cluster: Cluster, user: User): void;
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** Clusters, users and contexts as client-node's `KubeConfig` holds them, with the few readers the credentials need. */
export class NativeKubeConfig implements KubeConfigView {
  clusters: Cluster[] = [];
  users: User[] = [];
  contexts: Context[] = [];
  currentContext = '';

  getCurrentContext(): string { return this.currentContext; }
  getClusters(): Cluster[] { return this.clusters; }
  getUsers(): User[] { return this.users; }
  getContexts(): Context[] { return this.contexts; }
  getContextObject(name: string): Context | null { return named(this.contexts, name); }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context ? named(this.clusters, context.cluster) : null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context?.user ? named(this.users, context.user) : null;
  }

  loadFromClusterAndUser(cluster: Cluster, user: User): void {
    this.clusters = [cluster];
    this.users = [user];
    this.currentContext = 'loaded-context';
    this.contexts = [{ name: this.currentContext, cluster: cluster.name, user: user.name }];
  }

  /** TLS material, the token, basic credentials and impersonation, as client-node applies them. */
  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    if (!user) return;
    if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
    const ca = cluster ? await fileOrData(cluster.caFile, cluster.caData) : undefined;
    const cert = await fileOrData(user.certFile, user.certData);
    const key = await fileOrData(user.keyFile, user.keyData);
    if (ca) opts.ca = ca;
    if (cert) opts.cert = cert;
    if (key) opts.key = key;
    const headers = (opts.headers ??= {}) as Record<string, string>;
    if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
    if (user.token) headers.Authorization = `Bearer ${user.token}`;
    if (user.username) opts.auth = `${user.username}:${user.password}`;
  }

  /** The pod's service account, as client-node's `loadFromCluster` describes it. */
  static inCluster(): NativeKubeConfig {
    const host = process.env.KUBERNETES_SERVICE_HOST;
    const port = process.env.KUBERNETES_SERVICE_PORT;
    const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
    const server = `${scheme}://${host && isIPv6(host) ? `[${host}]` : host}:${port}`;
    const namespaceFile = `${SERVICE_ACCOUNT}/namespace`;
    const kc = new NativeKubeConfig();
    kc.clusters = [{ name: 'inCluster', server, caFile: `${SERVICE_ACCOUNT}/ca.crt`, skipTLSVerify: false }];
    kc.users = [{
      name: 'inClusterUser',
      authProvider: { name: 'tokenFile', config: { tokenFile: `${SERVICE_ACCOUNT}/token` } },
    }];
    const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8') : undefined;
    kc.contexts = [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', namespace }];
    kc.currentContext = 'inClusterContext';
    return kc;
  }

  /**
   * Parsed kubeconfig files (their checks passed) merged as client-node merges them: the first
   * file's entries, then each next file's, a name defined twice being an error; the last file
   * that sets a current context sets it.
   */
  static fromFiles(files: readonly KubeConfigFileContent[]): NativeKubeConfig {
    const kc = new NativeKubeConfig();
    for (const { path, config } of files) {
      const root = dirname(path);
      kc.#add('cluster', kc.clusters, listOf(config.clusters).map((item, i) => clusterOf(item, i, root)));
      kc.#add('user', kc.users, listOf(config.users).map((item, i) => userOf(item, i, root)));
      kc.#add('context', kc.contexts, listOf(config.contexts).map(contextOf));
      if (typeof config['current-context'] === 'string' && config['current-context'])
        kc.currentContext = config['current-context'];
    }
    return kc;
  }

  #add<T extends { name: string }>(kind: string, into: T[], items: readonly T[]): void {
    for (const item of items) {
      if (into.some((known) => known.name === item.name)) throw new Error(`Duplicate ${kind}: ${item.name}`);
      into.push(item);
    }
  }
}

/**
 * Whether client-node is needed for these credentials: an auth provider other than a token file
 * (OIDC, Azure, GCP, or one of the application's), or a proxy.
 */
export function needsClientNode(kc: KubeConfigView): boolean {
  const user = kc.getCurrentUser();
  const provider = user?.authProvider as { config?: { tokenFile?: unknown } } | undefined;
  const tokenFile = typeof provider?.config?.tokenFile === 'string' && provider.config.tokenFile !== '';
  return (provider != null && !tokenFile) || Boolean(kc.getCurrentCluster()?.proxyUrl);
}

function named<T extends { name: string }>(items: readonly T[], name: string): T | null {
  return items.find((item) => item.name === name) ?? null;
}

function listOf(value: unknown): Record<string, unknown>[] {
  // The checks made sure that every entry of a list is a mapping.
  return Array.isArray(value) ? value as Record<string, unknown>[] : [];
}

function section(item: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = item[key];
  return isMapping(value) ? value : undefined;
}

function text(holder: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = holder?.[key];
  return typeof value === 'string' ? value : undefined;
}

function clusterOf(item: Record<string, unknown>, index: number, root: string): Cluster {
  const name = text(item, 'name');
  const cluster = section(item, 'cluster');
  if (!name) throw new Error(`clusters[${index}].name is missing`);
  if (!cluster) throw new Error(`clusters[${index}].cluster is missing`);
  const server = text(cluster, 'server');
  if (!server) throw new Error(`clusters[${index}].cluster.server is missing`);
  return {
    name,
    server: server.replace(/\/$/, ''),
    caData: text(cluster, 'certificate-authority-data'),
    caFile: absolute(root, text(cluster, 'certificate-authority')),
    skipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: text(cluster, 'tls-server-name'),
    proxyUrl: text(cluster, 'proxy-url'),
  };
}

function userOf(item: Record<string, unknown>, index: number, root: string): User {
  const name = text(item, 'name');
  if (!name) throw new Error(`users[${index}].name is missing`);
  const user = section(item, 'user');
  const tokenFile = text(user, 'token-file');
  return {
    name,
    authProvider: user?.['auth-provider'],
    exec: user?.exec,
    certData: text(user, 'client-certificate-data'),
    certFile: absolute(root, text(user, 'client-certificate')),
    keyData: text(user, 'client-key-data'),
    keyFile: absolute(root, text(user, 'client-key')),
    // Read once, when the file is loaded, as client-node does (relative to the working directory, as there).
    token: text(user, 'token') || (tokenFile ? readFileSync(tokenFile, 'utf8') : undefined),
    username: text(user, 'username'),
    password: text(user, 'password'),
    impersonateUser: text(user, 'as'),
  };
}

function contextOf(item: Record<string, unknown>, index: number): Context {
  const name = text(item, 'name');
  const context = section(item, 'context');
  if (!name) throw new Error(`contexts[${index}].name is missing`);
  if (!context) throw new Error(`contexts[${index}].context is missing`);
  const cluster = text(context, 'cluster');
  if (!cluster) throw new Error(`contexts[${index}].context.cluster is missing`);
  return { name, cluster, user: text(context, 'user') || '', namespace: text(context, 'namespace') || undefined };
}

function absolute(root: string, file: string | undefined): string | undefined {
  return file && !isAbsolute(file) ? join(root, file) : file;
}

async function fileOrData(file: string | undefined, data: string | undefined): Promise<Buffer | undefined> {
  if (file) return readFile(file);
  return data ? Buffer.from(data, 'base64') : undefined;
}
