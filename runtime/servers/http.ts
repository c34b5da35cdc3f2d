/**
 * The runtime's own HTTP servers (the liveness endpoint, the webhook server, any later one) are made
 * here, one way, so that whatever a caller sends, the server answers it or closes the connection,
 * and goes on serving:
 *
 * - What Node cannot parse (the request line, the headers, the chunked encoding) Node answers
 *   itself: 400, 431 for headers past its size limit; the handlers never see it.
 * - A client that has not sent its headers within `headersTimeout` seconds, or its whole request
 *   within `requestTimeout`, is answered 408 and disconnected; one that has not finished its TLS
 *   handshake within `headersTimeout` is disconnected. Slow clients cannot hold connections.
 * - A handler that fails is a bug, not the caller's fault: it is logged, answered 500 (or the
 *   connection closed if the answer had begun), and never escapes as an unhandled rejection.
 * - HTTPS speaks TLS 1.2 or later, with forward-secret AEAD suites only (no CBC, no SHA-1 MACs),
 *   whatever Node's defaults or flags allow.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';

/** Seconds a client has for each step of its request; slower ones are disconnected. */
export interface ServerLimits {
  /** From the connection to the end of the request's headers (and for the TLS handshake). */
  headersTimeout: number;
  /** From the connection to the end of the request's body. */
  requestTimeout: number;
}

/** Enough for any caller on a working network: the API server sends a review at once. */
const DEFAULT_LIMITS: ServerLimits = { headersTimeout: 10, requestTimeout: 30 };

/** Serves one request; its failure is answered 500 and logged (a bug: bad input is answered by the handler). */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

export interface HttpServerOptions {
  logger: Logger;
  /** HTTPS with these (certificate, key, client CA); plain HTTP without. */
  tls?: Pick<HttpsServerOptions, 'cert' | 'key' | 'ca' | 'requestCert' | 'rejectUnauthorized'>;
  limits?: Partial<ServerLimits>;
}

/**
 * TLS 1.3's suites (all AEAD) and TLS 1.2's ECDHE suites with GCM or ChaCha20-Poly1305: what the
 * API server (Go) offers, and nothing that falls back to CBC with SHA-1.
 */
const CIPHERS = [
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** Makes a server that serves `handle` within the limits; it does not listen yet (see `listen`). */
export async function createHttpServer(handle: RequestHandler, options: HttpServerOptions): Promise<Server> {
  const { logger, tls } = options;
  // A limit left undefined is the default's, not "no limit".
  const headersTimeout = (options.limits?.headersTimeout ?? DEFAULT_LIMITS.headersTimeout) * 1000;
  const requestTimeout = (options.limits?.requestTimeout ?? DEFAULT_LIMITS.requestTimeout) * 1000;
  const timeouts = {
    headersTimeout, requestTimeout,
    // Node looks for overdue requests only this often; its default (30 s) would outlast the timeouts.
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
  const listener = guarded(handle, logger);
  // Loaded here: an operator without servers does not load Node's HTTP modules at all.
  if (!tls) return (await import('node:http')).createServer(timeouts, listener);
  const secure = { ...tls, minVersion: 'TLSv1.2', ciphers: CIPHERS, handshakeTimeout: headersTimeout } as const;
  const server = (await import('node:https')).createServer({ ...timeouts, ...secure }, listener);
  server.on('tlsClientError', (error: Error, socket: TLSSocket) => refused(logger, error, socket));
  return server;
}

/** Listens on the address (all interfaces if none) and port (a free one if 0); resolves with the port. */
export function listen(server: Server, host: string | undefined, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops listening and closes the open connections, mid-request or idle. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Answers with `body` whole, its length declared; `close` asks the client to close the connection after it. */
export function answer(
  response: ServerResponse, status: number, type: string, body: string, options: { close?: boolean } = {},
): void {
  const headers = { 'content-type': type, 'content-length': Buffer.byteLength(body) };
  response.writeHead(status, options.close ? { ...headers, connection: 'close' } : headers);
  response.end(body);
}

/** The handler, with whatever it throws or rejects with caught, logged and answered. */
function guarded(handle: RequestHandler, logger: Logger): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const serve = async () => handle(request, response);
    serve().catch((error: unknown) => {
      const what = `${request.method} ${JSON.stringify(request.url)}`;
      logger.error(`A request (${what}) failed unexpectedly: ${thrownText(error)}`, error);
      try {
        if (response.headersSent) throw new Error('The answer has begun: only closing is left.');
        answer(response, 500, 'text/plain', 'The request failed unexpectedly; the server has logged why.\n');
      } catch {
        response.destroy();
      }
    });
  };
}

/**
 * A TLS connection that failed before a request. A caller refused for its client certificate (an
 * invalid one, or none where the server asks for one) is worth a warning; anything else (scanners,
 * plain HTTP, a client giving up) is noise.
 */
function refused(logger: Logger, error: Error, socket: TLSSocket): void {
  const from = `A TLS connection from ${socket.remoteAddress ?? 'an unknown address'} is refused`;
  // Node closes a connection whose certificate fails verification, and says why only here.
  const invalid = socket.authorizationError;
  if (invalid) logger.warning(`${from}: its client certificate is not valid (${String(invalid)}).`);
  else if ((error as NodeJS.ErrnoException).code === 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE') {
    logger.warning(`${from}: it presented no client certificate.`);
  } else logger.debug(`${from}: ${error.message}`);
  socket.destroy();
}
