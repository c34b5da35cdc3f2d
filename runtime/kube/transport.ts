/**
 * One HTTP exchange with the API server over keep-alive connections of our own (client-node's
 * transport is not used: see the field lessons on its watch). One agent per distinct TLS identity;
 * when credentials rotate their TLS material (exec plugins issuing client certificates), the old
 * agent serves its open requests (watches) to the end and is then destroyed.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Credentials } from './credentials/credentials.ts';

export interface Exchange {
  method: string;
  /** The path from the server's base URL on, with the query: `/api/v1/pods?limit=500`. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  signal?: AbortSignal;
  /** Milliseconds to open a new connection (TCP and TLS); reused connections skip it. */
  connectTimeout?: number;
  /** Milliseconds until the response headers arrive. */
  headersTimeout?: number;
  /** Milliseconds for the whole exchange, the body included. */
  timeout?: number;
}

export interface TransportOptions {
  /** Connections per agent; unlimited by default, as in Kopf (every watch holds one). */
  maxSockets?: number;
}

interface AgentSlot {
  agent: http.Agent;
  active: number;
  retired: boolean;
}

export function timeoutError(message: string): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

export class Transport {
  readonly #options: TransportOptions;
  readonly #slots = new Map<string, AgentSlot>();
  readonly #keys = new WeakMap<Credentials, string>();
  #current: string | undefined;

  constructor(options: TransportOptions = {}) {
    this.#options = options;
  }

  /** Sends a request; resolves with the response as soon as its headers arrive. */
  send(credentials: Credentials, exchange: Exchange): Promise<IncomingMessage> {
    const origin = originOf(credentials);
    const secure = origin.protocol === 'https:';
    const slot = credentials.agent ? undefined : this.#slotFor(credentials, secure);
    const agent = credentials.agent ?? slot?.agent;
    const module = secure ? https : http;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = module.request({
        protocol: origin.protocol, hostname: origin.hostname, port: origin.port, path: origin.prefix + exchange.path,
        method: exchange.method, headers: exchange.headers, agent, signal: exchange.signal,
      });
      const timers: NodeJS.Timeout[] = [];
      const limit = (ms: number | undefined, what: string): NodeJS.Timeout | undefined => {
        if (ms === undefined) return undefined;
        const timer = setTimeout(() => req.destroy(timeoutError(`${what} timed out after ${ms} ms`)), ms);
        timers.push(timer);
        return timer;
      };
      if (slot) slot.active++;
      req.once('close', () => {
        timers.forEach(clearTimeout);
        if (slot) this.#release(slot);
      });
      req.once('error', reject);
      if (exchange.connectTimeout !== undefined) {
        req.once('socket', (socket) => {
          if (!socket.connecting) return;
          const timer = limit(exchange.connectTimeout, 'connecting');
          socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
        });
      }
      const headersTimer = limit(exchange.headersTimeout, 'waiting for the response');
      req.once('response', (response) => {
        if (headersTimer) clearTimeout(headersTimer);
        resolve(response);
      });
      limit(exchange.timeout, 'the request');
      req.end(exchange.body);
    });
  }

  /** Closes every connection, including open watches. */
  close(): void {
    for (const slot of this.#slots.values()) slot.agent.destroy();
    this.#slots.clear();
    this.#current = undefined;
  }

  #slotFor(credentials: Credentials, secure: boolean): AgentSlot {
    let key = this.#keys.get(credentials);
    if (key === undefined) {
      key = tlsKey(credentials, secure);
      this.#keys.set(credentials, key);
    }
    let slot = this.#slots.get(key);
    if (!slot) {
      const options = { keepAlive: true, scheduling: 'lifo' as const, maxSockets: this.#options.maxSockets ?? Infinity, ...credentials.tls };
      slot = { agent: secure ? new TlsIdentityAgent(options) : new http.Agent(options), active: 0, retired: false };
      this.#slots.set(key, slot);
    }
    if (this.#current !== key) {
      this.#current = key;
      for (const [other, old] of this.#slots) {
        if (other === key) continue;
        old.retired = true;
        if (old.active === 0) this.#drop(other, old);
      }
    }
    return slot;
  }

  #release(slot: AgentSlot): void {
    slot.active--;
    if (slot.retired && slot.active === 0) {
      for (const [key, candidate] of this.#slots) if (candidate === slot) this.#drop(key, slot);
    }
  }

  #drop(key: string, slot: AgentSlot): void {
    slot.agent.destroy();
    this.#slots.delete(key);
  }
}

/** The parts of a server's URL that every request needs, parsed once per credentials. */
interface Origin {
  protocol: string;
  /** Without the brackets of an IPv6 address. */
  hostname: string;
  port: number | undefined;
  /** The base URL's path (a proxy's prefix), without its trailing slash. */
  prefix: string;
}

const origins = new WeakMap<Credentials, Origin>();

function originOf(credentials: Credentials): Origin {
  let origin = origins.get(credentials);
  if (!origin) {
    const url = new URL(credentials.server);
    origin = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : undefined,
      prefix: url.pathname.replace(/\/+$/, ''),
    };
    origins.set(credentials, origin);
  }
  return origin;
}

/**
 * An https agent for one TLS identity (its slot's key). Node names pooled connections by their
 * host and every TLS option, the CA, certificate and key among them: kilobytes of text joined and
 * hashed for every request. Here the identity is the agent's own, so the host, port and server
 * name are enough to tell its connections apart.
 */
class TlsIdentityAgent extends https.Agent {
  override getName(options: https.RequestOptions = {}): string {
    return `${options.host ?? options.hostname ?? 'localhost'}:${options.port ?? ''}:${options.localAddress ?? ''}:${options.servername ?? ''}:${options.family ?? ''}`;
  }
}

function tlsKey(credentials: Credentials, secure: boolean): string {
  const hash = createHash('sha256').update(secure ? 'https' : 'http');
  const tls = credentials.tls;
  for (const field of [tls.ca, tls.cert, tls.key, tls.pfx, tls.passphrase, tls.servername, String(tls.rejectUnauthorized)]) {
    hash.update('\0').update(field ?? '');
  }
  return hash.digest('hex');
}
