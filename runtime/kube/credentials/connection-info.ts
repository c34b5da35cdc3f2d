/**
 * What a login handler returns (Kopf's `ConnectionInfo`): where the API server is and how to
 * authenticate to it, as plain data. Paths are read when the credentials are taken into use.
 */
import { readFile } from 'node:fs/promises';
import type { Credentials, TlsMaterial } from './credentials.ts';

export interface ConnectionInfo {
  /** The API server's URL: `https://127.0.0.1:6443`. */
  server: string;
  /** The CA's certificate: a PEM file, or PEM text (base64 of PEM is accepted too, as Kopf does). */
  caPath?: string;
  caData?: string | Buffer;
  /** Do not verify the server's certificate. */
  insecure?: boolean;
  /** HTTP basic authentication. */
  username?: string;
  password?: string;
  /** `Authorization: <scheme> <token>`; the scheme is `Bearer` when only a token is given. */
  scheme?: string;
  token?: string;
  /** A client certificate and its key: files, or PEM (or base64 of PEM). */
  certificatePath?: string;
  certificateData?: string | Buffer;
  privateKeyPath?: string;
  privateKeyData?: string | Buffer;
  /** Further headers of every request (impersonation, say). */
  headers?: Readonly<Record<string, string>>;
  /** The namespace for events about cluster-scoped objects. */
  defaultNamespace?: string;
  /** Credentials of the highest priority are used first; others when those are rejected. */
  priority?: number;
  /** When these credentials stop being valid: the login handlers are called again then. */
  expiration?: Date;
}

/** The credentials a request is sent with, from what a login handler returned. */
export async function credentialsOf(info: ConnectionInfo): Promise<Credentials> {
  checkPairs(info);
  const tls: TlsMaterial = {};
  const ca = info.caPath ? await readFile(info.caPath) : pem(info.caData);
  const cert = info.certificatePath ? await readFile(info.certificatePath) : pem(info.certificateData);
  const key = info.privateKeyPath ? await readFile(info.privateKeyPath) : pem(info.privateKeyData);
  if (ca) tls.ca = ca;
  if (cert) tls.cert = cert;
  if (key) tls.key = key;
  if (info.insecure) tls.rejectUnauthorized = false;
  const headers: Record<string, string> = { ...info.headers };
  const authorization = authorizationOf(info);
  if (authorization) headers.Authorization = authorization;
  return {
    server: info.server, headers, tls,
    ...(info.expiration && { expiresAt: info.expiration.getTime() }),
    ...(info.defaultNamespace && { namespace: info.defaultNamespace }),
  };
}

/** The credentials as a login handler would return them (for a handler that passes on the kubeconfig's). */
export function connectionOf(credentials: Credentials): ConnectionInfo {
  const { tls, headers } = credentials;
  return {
    server: credentials.server,
    ...(tls.ca && { caData: tls.ca }),
    ...(tls.cert && { certificateData: tls.cert }),
    ...(tls.key && { privateKeyData: tls.key }),
    ...(tls.rejectUnauthorized === false && { insecure: true }),
    ...(Object.keys(headers).length && { headers }),
    ...(credentials.namespace && { defaultNamespace: credentials.namespace }),
    ...(credentials.expiresAt !== undefined && { expiration: new Date(credentials.expiresAt) }),
  };
}

/** Kopf's order: a token with its scheme, a scheme alone, a bearer token, else basic authentication. */
function authorizationOf(info: ConnectionInfo): string | undefined {
  if (info.scheme && info.token) return `${info.scheme} ${info.token}`;
  if (info.scheme) return info.scheme;
  if (info.token) return `Bearer ${info.token}`;
  if (info.username && info.password) {
    return `Basic ${Buffer.from(`${info.username}:${info.password}`).toString('base64')}`;
  }
  return undefined;
}

function checkPairs(info: ConnectionInfo): void {
  for (const [path, data, what] of [
    [info.caPath, info.caData, 'CA'], [info.certificatePath, info.certificateData, 'certificate'],
    [info.privateKeyPath, info.privateKeyData, 'private key'],
  ] as const) {
    if (path && data) throw new TypeError(`Both ${what} path & data are set. Need only one.`);
  }
}

/** PEM as it is; anything else is taken for base64 of PEM (a kubeconfig's `*-data` fields). */
function pem(data: string | Buffer | undefined): string | Buffer | undefined {
  if (data === undefined || data.length === 0) return undefined;
  const text = typeof data === 'string' ? data : data.toString('ascii');
  return text.startsWith('-----BEGIN ') ? data : Buffer.from(text, 'base64');
}
