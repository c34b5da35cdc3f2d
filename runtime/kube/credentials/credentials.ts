/**
 * What a request needs to reach and authenticate to the API server, and where it comes from.
 * Credentials expire (exec plugins, rotated service-account tokens), so the client asks a source
 * for them before every request; the source caches them until they expire or a 401 proves them stale.
 */
import type { Agent } from 'node:http';
import { thrownText } from '../../structs/errors.ts';

export interface TlsMaterial {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  pfx?: string | Buffer;
  passphrase?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

export interface Credentials {
  /** Base URL of the API server, possibly with a path prefix: `https://127.0.0.1:6443`. */
  readonly server: string;
  /** Authentication and impersonation headers sent with every request. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tls: Readonly<TlsMaterial>;
  /** An agent the kubeconfig insists on (a proxy); otherwise the client's own keep-alive agent is used. */
  readonly agent?: Agent;
  /** When these credentials must be fetched again (ms since the epoch); never if absent. */
  readonly expiresAt?: number;
  /** The namespace of the current context (or of the pod's service account), if any. */
  readonly namespace?: string;
}

/** Why a file could not be read, in a few words: "does not exist", "cannot be read (EACCES)". */
export function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? thrownText(error)})`;
}

/** The Kubernetes configuration is missing or unusable: a message for the user, no trace needed. */
export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

export interface CredentialSource {
  /** Valid credentials: cached ones, or fresh ones if those expired or were invalidated. */
  get(): Promise<Credentials>;
  /**
   * Marks these credentials as rejected (the server answered 401). Only the credentials that
   * failed are dropped, so that many requests failing at once cause a single refresh.
   */
  invalidate(stale: Credentials): void;
  /**
   * After a 401, `get()` gives other credentials or throws, so a request tries them all (a vault of
   * several). Otherwise a rejected request is retried once, with the credentials loaded afresh.
   */
  readonly triesAll?: boolean;
}

/**
 * Caches what `load` returns until it expires or is invalidated; concurrent callers share one load,
 * so an exec plugin runs once however many requests are waiting for it.
 */
export class CachedCredentials implements CredentialSource {
  readonly #load: () => Promise<Credentials>;
  #current: Credentials | undefined;
  #loading: Promise<Credentials> | undefined;

  constructor(load: () => Promise<Credentials>) {
    this.#load = load;
  }

  get(): Promise<Credentials> {
    const current = this.#current;
    if (current && (current.expiresAt === undefined || current.expiresAt > Date.now())) return Promise.resolve(current);
    this.#loading ??= this.#load().then(
      (fresh) => { this.#current = fresh; this.#loading = undefined; return fresh; },
      (error: unknown) => { this.#loading = undefined; throw error; },
    );
    return this.#loading;
  }

  invalidate(stale: Credentials): void {
    if (this.#current === stale) this.#current = undefined;
  }
}

/** Fixed credentials, e.g. for a server started by a test. */
export function staticCredentials(credentials: Credentials): CredentialSource {
  return new CachedCredentials(async () => credentials);
}
