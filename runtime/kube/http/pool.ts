/**
 * Keep-alive connections to one server with one TLS identity, at most `limit` of them; requests
 * beyond it wait for a free connection, first come first served. The most recently freed
 * connection is reused first, so that a quiet period lets the others go idle. Each exchange has
 * its time limits and its abort signal here, where the connection it occupies is known.
 */
import { Connection } from './connection.ts';
import type { Endpoint, ExchangeSink, Flow } from './connection.ts';
import type { ResponseHead } from './parser.ts';

export interface Outgoing {
  method: string;
  /** The request line and headers, CRLF-terminated, blank line included. */
  head: string;
  body?: Buffer | string;
  signal?: AbortSignal;
  /** Milliseconds to open a new connection (TCP and TLS); reused connections skip it. */
  connectTimeout?: number;
  /** Milliseconds until the response headers arrive. */
  headersTimeout?: number;
  /** Milliseconds for the whole exchange, the body included. */
  timeout?: number;
}

/** A request as the transport is given it: path and headers, before they are written as a head. */
export interface Exchange extends Omit<Outgoing, 'head'> {
  /** The path from the server's base URL on, with the query: `/api/v1/pods?limit=500`. */
  path: string;
  /** Request headers; `Host` and `Content-Length` are the transport's own. */
  headers: Record<string, string>;
}

export function timeoutError(message: string): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

function closedError(): Error {
  return Object.assign(new Error('the client is closed'), { code: 'ERR_CLIENT_CLOSED' });
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(
    new Error('The operation was aborted', { cause: signal.reason }),
    { name: 'AbortError', code: 'ABORT_ERR' },
  );
}

export class Pool {
  readonly #endpoint: Endpoint;
  readonly #limit: number;
  readonly #idle: Connection[] = [];
  readonly #waiting: PooledExchange[] = [];
  #session: Buffer | undefined;
  #closed = false;
  /** Connections carrying an exchange, opening for one, or closing; with the idle ones, all that are open. */
  readonly #busy = new Set<Connection>();

  /** Connections open or opening. */
  get #open(): number {
    return this.#busy.size + this.#idle.length;
  }

  constructor(endpoint: Endpoint, limit = Infinity) {
    this.#endpoint = endpoint;
    this.#limit = limit;
  }

  /** Sends a request; its response goes to `sink` (exactly one `end` or `fail`). */
  send(outgoing: Outgoing, sink: ExchangeSink): void {
    if (this.#closed) return sink.fail(closedError());
    const exchange = new PooledExchange(outgoing, sink, this.#waiting, (again) => this.#retry(again));
    if (exchange.done) return;
    const connection = this.#idle.pop();
    if (connection) {
      this.#busy.add(connection);
      return exchange.start(connection, false);
    }
    if (this.#open < this.#limit) return this.#startFresh(exchange);
    this.#waiting.push(exchange);
  }

  /** An exchange whose reused connection turned out to be closed: on a new connection, first in line. */
  #retry(exchange: PooledExchange): void {
    if (this.#closed) return exchange.fail(closedError());
    if (this.#open < this.#limit) return this.#startFresh(exchange);
    this.#waiting.unshift(exchange);
  }

  /** Closes every connection; exchanges in flight (watches among them) fail. */
  close(): void {
    this.#closed = true;
    for (const exchange of this.#waiting.splice(0)) exchange.fail(closedError());
    for (const connection of this.#idle.splice(0)) connection.destroy();
    for (const connection of this.#busy) connection.destroy();
  }

  /** Starts the exchange on a new connection; TLS material that Node refuses fails the exchange. */
  #startFresh(exchange: PooledExchange): void {
    let connection: Connection;
    try {
      connection = new Connection(
        this.#endpoint,
        this.#session,
        (c, reusable) => this.#released(c, reusable),
        (c) => this.#gone(c),
      );
    } catch (error) {
      return exchange.fail(error as Error);
    }
    connection.socket.on('session', (session: Buffer) => { this.#session = session; });
    this.#busy.add(connection);
    exchange.start(connection, true);
  }

  #released(connection: Connection, reusable: boolean): void {
    if (!reusable) return;
    if (this.#closed) return connection.destroy();
    const next = this.#waiting.shift();
    if (next) return next.start(connection, false);
    this.#busy.delete(connection);
    connection.idle();
    this.#idle.push(connection);
  }

  #gone(connection: Connection): void {
    this.#busy.delete(connection);
    const at = this.#idle.indexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    if (this.#closed) return;
    const next = this.#waiting.shift();
    if (next) this.#startFresh(next);
  }
}

/** Errors of a connection that the server closed (or reset) under a request. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE']);

/**
 * One request from its arrival to its response's end: its timers, its abort, its connection.
 *
 * A keep-alive connection may be closed by the server (or a load balancer's idle timeout) just as
 * a request is written to it. So an exchange whose reused connection drops before any response
 * arrived is sent again at once, once, on a new connection, rather than failed into the client's
 * retry schedule (which would wait a second or more for what is not an error of the server's).
 */
class PooledExchange implements ExchangeSink {
  done = false;
  readonly #outgoing: Outgoing;
  readonly #sink: ExchangeSink;
  readonly #queue: PooledExchange[];
  readonly #retry: (exchange: PooledExchange) => void;
  #connection: Connection | undefined;
  #reused = false;
  #answered = false;
  #retried = false;
  #timeout: NodeJS.Timeout | undefined;
  #headersTimeout: NodeJS.Timeout | undefined;
  #connectTimeout: NodeJS.Timeout | undefined;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    outgoing: Outgoing,
    sink: ExchangeSink,
    queue: PooledExchange[],
    retry: (exchange: PooledExchange) => void,
  ) {
    this.#outgoing = outgoing;
    this.#sink = sink;
    this.#queue = queue;
    this.#retry = retry;
    const { signal } = outgoing;
    if (signal?.aborted) {
      this.fail(abortError(signal));
      return;
    }
    if (signal) {
      this.#onAbort = () => this.#stop(abortError(signal));
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    if (outgoing.timeout !== undefined) this.#timeout = this.#limit(outgoing.timeout, 'the request');
  }

  start(connection: Connection, fresh: boolean): void {
    this.#connection = connection;
    this.#reused = !fresh;
    const { connectTimeout, headersTimeout } = this.#outgoing;
    if (fresh && connectTimeout !== undefined) {
      this.#connectTimeout = this.#limit(connectTimeout, 'connecting');
      connection.socket.once(connection.connectEvent, () => clearTimeout(this.#connectTimeout));
    }
    if (headersTimeout !== undefined) this.#headersTimeout = this.#limit(headersTimeout, 'waiting for the response');
    connection.send(this.#outgoing.method, this.#outgoing.head, this.#outgoing.body, this);
  }

  head(head: ResponseHead, flow: Flow): void {
    this.#answered = true;
    clearTimeout(this.#headersTimeout);
    this.#sink.head(head, flow);
  }

  data(chunk: Buffer): void {
    this.#sink.data(chunk);
  }

  end(): void {
    if (this.#finish()) this.#sink.end();
  }

  fail(error: Error): void {
    if (
      this.#reused && !this.#answered && !this.#retried && !this.done && DROPPED.has(
        (error as { code?: string }).code ?? ''
      )
    ) {
      this.#retried = true;
      this.#connection = undefined;
      clearTimeout(this.#headersTimeout);
      return this.#retry(this);
    }
    if (this.#finish()) this.#sink.fail(error);
  }

  /** Ends the exchange early: on its connection if it has one, else in the queue. */
  #stop(error: Error): void {
    if (this.#connection) {
      this.#connection.destroy(error);
      return;
    }
    const at = this.#queue.indexOf(this);
    if (at >= 0) this.#queue.splice(at, 1);
    this.fail(error);
  }

  #limit(ms: number, what: string): NodeJS.Timeout {
    return setTimeout(() => this.#stop(timeoutError(`${what} timed out after ${ms} ms`)), ms);
  }

  #finish(): boolean {
    if (this.done) return false;
    this.done = true;
    clearTimeout(this.#timeout);
    clearTimeout(this.#headersTimeout);
    clearTimeout(this.#connectTimeout);
    if (this.#onAbort) this.#outgoing.signal?.removeEventListener('abort', this.#onAbort);
    return true;
  }
}
