/**
 * One keep-alive connection to the API server: a TCP or TLS socket that carries one exchange at a
 * time. Requests go out as one write (the head and a small body together, so one TLS record);
 * responses come back through the parser straight into the exchange's sink.
 *
 * Sockets read into one buffer shared by all connections (Node's `onread`), rather than into a
 * fresh buffer per read pushed through the socket's readable stream: each read would otherwise
 * cost an allocation outside the heap and a pass through the stream machinery, and a burst of
 * objects is tens of thousands of small reads. The buffer is reused at the next read, so the body
 * bytes are copied for the exchange's sink (small copies, from Node's buffer pool).
 */
import { isIP, connect as connectTcp } from 'node:net';
import type { OnReadOpts, Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import type { TlsMaterial } from '../credentials/credentials.ts';
import { coalescer } from './coalescing.ts';
import { ResponseParser, hangUpError } from './parser.ts';
import type { ResponseHead } from './parser.ts';

export interface Endpoint {
  secure: boolean;
  /** Without the brackets of an IPv6 address. */
  hostname: string;
  port: number;
  tls: Readonly<TlsMaterial>;
  /** Milliseconds of read coalescing for this server's responses (`coalescing.ts`); none if absent. */
  readCoalescing?: number;
}

/** What a response's receiver can ask of the connection that carries it. */
export interface Flow {
  /** Stops reading from the socket (backpressure); the server's sends stop when its buffers fill. */
  pause(): void;
  resume(): void;
  /** Gives up the response before its end: the connection is closed, as nothing else can reuse it. */
  abandon(): void;
}

/** Receives one response. Exactly one of `end` and `fail` is called, and nothing after it. */
export interface ExchangeSink {
  head(head: ResponseHead, flow: Flow): void;
  data(chunk: Buffer): void;
  end(): void;
  fail(error: Error): void;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Where every connection's socket reads; each read is consumed before the next one (one thread). */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** The TCP keep-alive probe delay, as Node's agents set it: half-open sockets are found in time. */
const KEEP_ALIVE_MS = 1000;

export class Connection implements Flow {
  readonly socket: Socket;
  /** The socket's event when the TCP connection (and the TLS handshake) is up. */
  readonly connectEvent: 'connect' | 'secureConnect';
  closed = false;
  readonly #parser: ResponseParser;
  #sink: ExchangeSink | undefined;
  readonly #released: (connection: Connection, reusable: boolean) => void;
  readonly #gone: (connection: Connection) => void;
  readonly #readCoalescing: number;

  /**
   * `released` is called when an exchange ends (reusable: the connection may take another);
   * `gone` once, when the socket closes for whatever reason.
   */
  constructor(
    endpoint: Endpoint,
    session: Buffer | undefined,
    released: (connection: Connection, reusable: boolean) => void,
    gone: (connection: Connection) => void,
  ) {
    this.#released = released;
    this.connectEvent = endpoint.secure ? 'secureConnect' : 'connect';
    this.#gone = gone;
    this.#readCoalescing = endpoint.readCoalescing ?? 0;
    this.socket = openSocket(endpoint, session, (bytes) => this.#data(bytes));
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, KEEP_ALIVE_MS);
    this.#parser = new ResponseParser({
      head: (head) => this.#sink?.head(head, this),
      data: (chunk) => this.#sink?.data(Buffer.from(chunk)),
      end: (reusable) => this.#end(reusable),
    });
    this.socket.on('end', () => this.#fail(this.#parser.close()));
    this.socket.on('error', (error: Error) => this.#fail(error));
    this.socket.once('close', () => {
      this.closed = true;
      this.#fail(hangUpError());
      this.#gone(this);
    });
  }

  /**
   * Sends a request whose response goes to `sink`. The connection must be free. The head goes out
   * as Latin-1, as Node writes headers; it is joined with a string body into one write when it is
   * ASCII, where Latin-1 and UTF-8 agree.
   */
  send(method: string, head: string, body: Buffer | string | undefined, sink: ExchangeSink): void {
    this.#sink = sink;
    this.#parser.expect(method);
    this.socket.ref();
    if (body === undefined) {
      this.socket.write(head, 'latin1');
    } else if (typeof body === 'string' && ASCII.test(head)) {
      this.socket.write(head + body);
    } else {
      this.socket.cork();
      this.socket.write(head, 'latin1');
      this.socket.write(body);
      this.socket.uncork();
    }
  }

  /** Marks the connection as waiting in the pool: it neither keeps the process alive nor stays paused. */
  idle(): void {
    this.socket.resume();
    this.socket.unref();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  abandon(): void {
    this.destroy(
      Object.assign(new Error('the response was abandoned before its end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })
    );
  }

  /** Closes the connection; an exchange in flight fails with `error` (or a hang-up). */
  destroy(error?: Error): void {
    if (error) this.#fail(error);
    this.socket.destroy();
  }

  #data(chunk: Buffer): void {
    coalescer.read(this.#readCoalescing);
    try {
      this.#parser.push(chunk);
    } catch (error) {
      this.destroy(error as Error);
    }
  }

  #end(reusable: boolean): void {
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.end();
    if (!reusable) this.socket.destroy();
    this.#released(this, reusable && !this.closed);
  }

  #fail(error: Error | undefined): void {
    const sink = this.#sink;
    if (!sink || !error) return;
    this.#sink = undefined;
    sink.fail(error);
  }
}

function openSocket(endpoint: Endpoint, session: Buffer | undefined, read: (bytes: Buffer) => void): Socket {
  const { hostname, port } = endpoint;
  const onread: OnReadOpts = {
    buffer: READ_BUFFER,
    callback: (n, buffer) => { read((buffer as Buffer).subarray(0, n)); return true; },
  };
  if (!endpoint.secure) return connectTcp({ host: hostname, port, onread });
  const { servername, ...tls } = endpoint.tls;
  // Server names are for DNS names only: TLS forbids IP addresses in SNI (the certificate is still
  // checked against the IP address).
  const sni = servername || (isIP(hostname) ? undefined : hostname);
  // Node's TLS sockets take `onread` as its TCP sockets do (Node's types omit it).
  const options: ConnectionOptions & { onread: OnReadOpts } = {
    host: hostname,
    port,
    servername: sni,
    session,
    onread,
    ...tls
  };
  return connectTls(options);
}
