/**
 * Credentials from login handlers (Kopf's vault). Each request takes the credentials of the
 * highest priority (one at random among equals); on a 401 they are dropped and the next ones are
 * tried. When none are left — all rejected, or expired — the login runs again, once however many
 * requests wait for it. Rejected credentials are remembered per handler (the last three), so that a
 * login returning the same rejected ones again does not loop: the requests fail with `LoginError`.
 */
import type { CredentialSource, Credentials } from './credentials.ts';
import { credentialsOf, type ConnectionInfo } from './connection-info.ts';

const RAN_OUT = 'Ran out of valid credentials: the login handlers returned none that were accepted (or none at all).';

export class LoginError extends Error {
  constructor(message = RAN_OUT) {
    super(message);
    this.name = 'LoginError';
  }
}

/** What one login gave: credentials by the id of the handler that returned them. */
export type LoginResults = ReadonlyMap<string, ConnectionInfo>;

interface Item {
  readonly credentials: Credentials;
  readonly priority: number;
  /** The returned info as data, to recognise rejected credentials when a login returns them again. */
  readonly fingerprint: string;
}

/** How many rejected credentials are remembered per login handler. */
const REMEMBERED = 3;

export class Vault implements CredentialSource {
  readonly triesAll = true;
  readonly #login: () => Promise<LoginResults>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #current = new Map<string, Item>();
  readonly #rejected = new Map<string, string[]>();
  #logging: Promise<void> | undefined;

  /**
   * `login` runs the login handlers; it is called when the vault is empty, first at the first
   * request. `random` picks among equals, `now` is the clock of expirations (replaceable for tests).
   */
  constructor(login: () => Promise<LoginResults>, options: { random?: () => number; now?: () => number } = {}) {
    this.#login = login;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
  }

  async get(): Promise<Credentials> {
    this.#expire();
    if (!this.#current.size) {
      this.#logging ??= this.#populate().finally(() => { this.#logging = undefined; });
      await this.#logging;
      this.#expire();
    }
    const item = this.#select();
    if (!item) throw new LoginError();
    return item.credentials;
  }

  invalidate(stale: Credentials): void {
    for (const [key, item] of this.#current) {
      if (item.credentials !== stale) continue;
      this.#current.delete(key);
      this.#rejected.set(key, [...(this.#rejected.get(key) ?? []), item.fingerprint].slice(-REMEMBERED));
    }
  }

  async #populate(): Promise<void> {
    const results = await this.#login();
    for (const [key, info] of results) {
      const fingerprint = fingerprintOf(info);
      if (this.#rejected.get(key)?.includes(fingerprint)) continue;
      this.#current.set(key, { credentials: await credentialsOf(info), priority: info.priority ?? 0, fingerprint });
    }
  }

  /** Expired credentials are dropped, but not remembered as rejected: a login may return them renewed. */
  #expire(): void {
    const now = this.#now();
    for (const [key, item] of this.#current) {
      if (item.credentials.expiresAt !== undefined && item.credentials.expiresAt <= now) this.#current.delete(key);
    }
  }

  #select(): Item | undefined {
    const items = [...this.#current.values()];
    const top = Math.max(...items.map((item) => item.priority));
    const best = items.filter((item) => item.priority === top);
    return best[Math.floor(this.#random() * best.length)];
  }
}

/** Buffers and dates turn into data on their own (`toJSON`). */
function fingerprintOf(info: ConnectionInfo): string {
  return JSON.stringify(info);
}
