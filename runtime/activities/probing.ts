/**
 * The liveness endpoint (`kopf run --liveness=http://0.0.0.0:8080/healthz`): a GET of its path
 * answers with the probe handlers' results by handler id, as JSON (`{}` without probes), as Kopf's
 * does. The results are collected again at most every 10 s, one collection at a time.
 *
 * Beyond Kopf, it is red (503, the reason as text) when the operator is not running — stopping,
 * or not serving yet — and when a watch stream has been silent past its inactivity timeout
 * without being re-established: liveness says the watches are fresh, not only that the process
 * is up. A probe that fails for good makes it answer 500.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';

/** Kopf's caching period of the probes' results. */
const PROBING_MAX_AGE_MS = 10_000;

export interface LivenessSource {
  /** Runs the probe handlers; their results by handler id. */
  probe(): Promise<ReadonlyMap<string, unknown>>;
  /** Why the operator is not alive, or `null` if it is. */
  problem(): string | null;
}

export class LivenessEndpoint {
  readonly url: string;
  readonly #server: Server;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  /** Listens at the endpoint's host and port (port 0: a free one, which `url` then names). */
  static async start(endpoint: string, source: LivenessSource, logger: Logger): Promise<LivenessEndpoint> {
    const { host, port, path } = parseEndpoint(endpoint);
    const respond = responder(path, source, logger);
    // Loaded only when served: an operator without the endpoint does not load Node's HTTP module.
    const { createServer } = await import('node:http');
    const server = createServer((request, response) => void respond(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => { server.off('error', reject); resolve(); });
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}${path}`;
    logger.debug(`Serving health status at ${url}`);
    return new LivenessEndpoint(server, url);
  }

  /** Stops listening; open connections are closed. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** `http://HOST:PORT/PATH`; HTTP only, as in Kopf. */
export function parseEndpoint(endpoint: string): { host: string; port: number; path: string } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    const example = 'http://0.0.0.0:8080/healthz';
    throw new TypeError(`The liveness endpoint must be a URL such as ${example}, not ${JSON.stringify(endpoint)}.`);
  }
  if (url.protocol !== 'http:') {
    throw new TypeError(`Unsupported scheme of the liveness endpoint: ${endpoint} (only http:// is served).`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  return { host, port: url.port ? Number(url.port) : 80, path: url.pathname || '/' };
}

function responder(path: string, source: LivenessSource, logger: Logger) {
  let cached: { at: number; body: string } | undefined;
  let collecting: Promise<string> | undefined;
  const collect = async (): Promise<string> => {
    if (cached && Date.now() - cached.at < PROBING_MAX_AGE_MS) return cached.body;
    collecting ??= source.probe()
      .then((results) => (cached = { at: Date.now(), body: JSON.stringify(Object.fromEntries(results)) }).body)
      .finally(() => { collecting = undefined; });
    return collecting;
  };
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requested = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (requested !== path) return answer(response, 404, 'text/plain', 'Not found.\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return answer(response, 405, 'text/plain', 'Only GET is served.\n');
    }
    const problem = source.problem();
    if (problem) return answer(response, 503, 'text/plain', `${problem}\n`);
    try {
      answer(response, 200, 'application/json', await collect());
    } catch (error) {
      logger.error(`The probes failed: ${thrownText(error)}`);
      answer(response, 500, 'text/plain', `The probes failed: ${thrownText(error)}\n`);
    }
  };
}

function answer(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
