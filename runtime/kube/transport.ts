/**
 * HTTP exchanges with the API server over keep-alive connections of our own (client-node's
 * transport is not used: its watches have been known to stop silently, with no error to react
 * to). Node's HTTP client is not used either on the direct path: per request it builds an outgoing
 * message, an incoming message and their streams, and costs more CPU per request than the
 * connection layer in `http/`, which makes a few small objects per request (measured by
 * `bench/requests/run.ts`; figures in bench/README.md). A proxy that the kubeconfig names comes
 * as Node's agent, so proxied requests go through Node's client (`http/through-agent.ts`).
 *
 * One pool per distinct TLS identity; when credentials rotate their TLS material (exec plugins
 * issuing client certificates), the old pool serves its open requests (watches) to the end and is
 * then closed.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Credentials } from './credentials/credentials.ts';
import type { ExchangeSink, Flow } from './http/connection.ts';
import type { ResponseHead } from './http/parser.ts';
import { Pool } from './http/pool.ts';
import type { Exchange } from './http/pool.ts';
import { sendThroughAgent } from './http/through-agent.ts';

export type { ResponseHead } from './http/parser.ts';

export interface BufferedResponse extends ResponseHead {
  body: Buffer;
}

export interface StreamedResponse extends ResponseHead {
  /** The body as it arrives; destroying it closes the connection. */
  body: Readable;
}

export interface TransportOptions {
  /** Connections per pool; unlimited by default, as in Kopf (every watch holds one). */
  maxSockets?: number;
  /** Milliseconds of read coalescing (`http/coalescing.ts`); none if absent. */
  readCoalescing?: number;
}

interface Slot {
  pool: Pool;
  active: number;
  retired: boolean;
}

export class Transport {
  readonly #options: TransportOptions;
  readonly #slots = new Map<string, Slot>();
  readonly #keys = new WeakMap<Credentials, string>();
  #current: string | undefined;

  constructor(options: TransportOptions = {}) {
    this.#options = options;
  }

  /** Sends a request; resolves with the whole response. */
  request(credentials: Credentials, exchange: Exchange): Promise<BufferedResponse> {
    return new Promise((resolve, reject) => {
      let head: ResponseHead | undefined;
      const chunks: Buffer[] = [];
      this.#send(credentials, exchange, {
        head: (h) => { head = h; },
        data: (chunk) => chunks.push(chunk),
        end: () => resolve(new WholeResponse(head!, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))),
        fail: reject,
      });
    });
  }

  /** Sends a request; resolves with the response as soon as its head arrives, its body streaming. */
  open(credentials: Credentials, exchange: Exchange): Promise<StreamedResponse> {
    return new Promise((resolve, reject) => {
      let body: BodyStream | undefined;
      this.#send(credentials, exchange, {
        head: (head, flow) => {
          body = new BodyStream(flow);
          resolve({ status: head.status, headers: head.headers, body });
        },
        data: (chunk) => body!.deliver(chunk),
        end: () => body!.finish(),
        fail: (error) => (body ? body.destroy(error) : reject(error)),
      });
    });
  }

  /** Closes every connection, including open watches. */
  close(): void {
    for (const slot of this.#slots.values()) slot.pool.close();
    this.#slots.clear();
    this.#current = undefined;
  }

  #send(credentials: Credentials, exchange: Exchange, sink: ExchangeSink): void {
    const origin = originOf(credentials);
    if (credentials.agent) return sendThroughAgent(origin, exchange, credentials.agent, sink);
    let head: string;
    try {
      head = requestHead(origin, exchange);
    } catch (error) {
      return sink.fail(error as Error);
    }
    const slot = this.#slotFor(credentials, origin);
    slot.active++;
    const release = () => this.#release(slot);
    slot.pool.send({ ...exchange, head }, {
      head: (h, flow) => sink.head(h, flow),
      data: (chunk) => sink.data(chunk),
      end: () => { release(); sink.end(); },
      fail: (error) => { release(); sink.fail(error); },
    });
  }

  #slotFor(credentials: Credentials, origin: Origin): Slot {
    let key = this.#keys.get(credentials);
    if (key === undefined) {
      key = identityKey(credentials, origin);
      this.#keys.set(credentials, key);
    }
    let slot = this.#slots.get(key);
    if (!slot) {
      const endpoint = {
        secure: origin.secure,
        hostname: origin.hostname,
        port: origin.port,
        tls: credentials.tls,
        readCoalescing: this.#options.readCoalescing,
      };
      slot = { pool: new Pool(endpoint, this.#options.maxSockets), active: 0, retired: false };
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

  #release(slot: Slot): void {
    slot.active--;
    if (slot.retired && slot.active === 0) {
      for (const [key, candidate] of this.#slots) if (candidate === slot) this.#drop(key, slot);
    }
  }

  #drop(key: string, slot: Slot): void {
    slot.pool.close();
    this.#slots.delete(key);
  }
}

/** The parts of a server's URL that every request needs, parsed once per credentials. */
export interface Origin {
  secure: boolean;
  /** Without the brackets of an IPv6 address. */
  hostname: string;
  port: number;
  /** The `Host` header: the host as the URL gives it, with the port unless it is the default. */
  host: string;
  /** The base URL's path (a proxy's prefix), without its trailing slash. */
  prefix: string;
}

const origins = new WeakMap<Credentials, Origin>();

function originOf(credentials: Credentials): Origin {
  let origin = origins.get(credentials);
  if (!origin) {
    const url = new URL(credentials.server);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new TypeError(`The server's URL must be http or https: ${credentials.server}`);
    const secure = url.protocol === 'https:';
    origin = {
      secure,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      host: url.host,
      prefix: url.pathname.replace(/\/+$/, ''),
    };
    origins.set(credentials, origin);
  }
  return origin;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// As Node's HTTP client: tab, visible ASCII and Latin-1 (headers go out as Latin-1).
const UNSAFE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const UNSAFE_PATH = /[\s\0]/;

/**
 * Header names and values found safe before. The same few strings (the credentials', the user
 * agent, the content types) go out with every request, and a string keeps its hash, so looking
 * them up is cheaper than matching them again. Bounded, as tokens rotate.
 */
const SAFE_NAMES = new Set<string>();
const SAFE_VALUES = new Set<string>();
const SAFE_LIMIT = 256;

function checkHeader(name: string, value: string): void {
  if (SAFE_NAMES.has(name) && SAFE_VALUES.has(value)) return;
  if (!TOKEN.test(name) || UNSAFE_VALUE.test(value))
    throw new TypeError(`Invalid character in the request header ${JSON.stringify(name)}`);
  if (SAFE_VALUES.size >= SAFE_LIMIT) SAFE_VALUES.clear();
  if (SAFE_NAMES.size >= SAFE_LIMIT) SAFE_NAMES.clear();
  SAFE_NAMES.add(name);
  SAFE_VALUES.add(value);
}

/** The request line and headers; throws on what would let a header or path break out of its line. */
function requestHead(origin: Origin, exchange: Exchange): string {
  const path = origin.prefix + exchange.path;
  if (UNSAFE_PATH.test(path))
    throw new TypeError(`The request path contains unescaped characters: ${JSON.stringify(path)}`);
  let head = `${exchange.method} ${path} HTTP/1.1\r\nHost: ${origin.host}\r\n`;
  for (const name in exchange.headers) {
    const value = exchange.headers[name]!;
    checkHeader(name, value);
    head += `${name}: ${value}\r\n`;
  }
  const { body } = exchange;
  if (body !== undefined)
    head += `Content-Length: ${typeof body === 'string' ? Buffer.byteLength(body) : body.length}\r\n`;
  return `${head}\r\n`;
}

/** A whole response, whose headers are read from its head only if they are asked for (`parser.ts`). */
class WholeResponse implements BufferedResponse {
  readonly body: Buffer;
  readonly #head: ResponseHead;

  constructor(head: ResponseHead, body: Buffer) {
    this.#head = head;
    this.body = body;
  }

  get status(): number {
    return this.#head.status;
  }

  get headers(): Record<string, string> {
    return this.#head.headers;
  }
}

/** A streamed body: pushes what arrives, and stops reading the socket while nobody reads it. */
class BodyStream extends Readable {
  readonly #flow: Flow;
  #ended = false;

  constructor(flow: Flow) {
    super();
    this.#flow = flow;
  }

  deliver(chunk: Buffer): void {
    if (!this.push(chunk)) this.#flow.pause();
  }

  finish(): void {
    this.#ended = true;
    this.push(null);
  }

  override _read(): void {
    this.#flow.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#ended) this.#flow.abandon();
    callback(error);
  }
}

function identityKey(credentials: Credentials, origin: Origin): string {
  const hash = createHash('sha256').update(`${origin.secure ? 'https' : 'http'}://${origin.host}`);
  const tls = credentials.tls;
  for (
    const field of [tls.ca, tls.cert, tls.key, tls.pfx, tls.passphrase, tls.servername, String(tls.rejectUnauthorized)]
  ) {
    hash.update('\0').update(field ?? '');
  }
  return hash.digest('hex');
}
