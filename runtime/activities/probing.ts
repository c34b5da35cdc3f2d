/**
 * The liveness endpoint (`kopf run --liveness=http://0.0.0.0:8080/healthz`): a GET of its path
 * answers with the probe handlers' results by handler id, as JSON (`{}` without probes), as Kopf's
 * does. The results are collected again at most every 10 s, one collection at a time.
 *
 * Beyond Kopf, it is red (503, the reason as text) when the operator is not running — stopping,
 * or not serving yet — and when a watch stream has been silent past its inactivity timeout
 * without being re-established: liveness says the watches are fresh, not only that the process
 * is up. A probe that fails for good makes it answer 500, naming the probe but not its message
 * (which may hold a connection string, and anyone who reaches the endpoint would read): the
 * message goes to the log. A request it cannot read is answered 400, as every server of the
 * runtime answers one (servers/http.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../logging/index.ts';
import { answer, close, createHttpServer, listen, type ServerLimits } from '../servers/http.ts';
import { thrownText } from '../structs/errors.ts';
import { ActivityError } from './activities.ts';

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

  /**
   * Listens at the endpoint's host and port (port 0: a free one, which `url` then names).
   * `limits`: how long a client may take to send its request (servers/http.ts's defaults).
   */
  static async start(
    endpoint: string, source: LivenessSource, logger: Logger, limits?: Partial<ServerLimits>,
  ): Promise<LivenessEndpoint> {
    const { host, port, path } = parseEndpoint(endpoint);
    const server = await createHttpServer(responder(path, source, logger), { logger, limits });
    const actualPort = await listen(server, host, port);
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}${path}`;
    logger.debug(`Serving health status at ${url}`);
    return new LivenessEndpoint(server, url);
  }

  /** Stops listening; open connections are closed. */
  async close(): Promise<void> {
    await close(this.#server);
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
    const requested = pathOf(request);
    if (requested === undefined) return answer(response, 400, 'text/plain', 'The request target is not a URL.\n');
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
      const ids = error instanceof ActivityError ? error.failures.map((failure) => failure.id) : [];
      const which = ids.length ? `: ${ids.join(', ')}` : '';
      answer(response, 500, 'text/plain', `The probes failed${which}; the operator's log says why.\n`);
    }
  };
}

/** The path the request asks for (`/healthz` of `/healthz?x` or `http://host/healthz`), if it names one. */
function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
