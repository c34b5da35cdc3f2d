/**
 * The runtime's plain-HTTP endpoints (`http://HOST:PORT/PATH`: the liveness endpoint, the metrics):
 * those that name the same host and port are served by one server, which routes by path. A path
 * that no endpoint serves is answered 404, a request target that is not a URL 400; the method is
 * each route's to check (405).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Logger } from '../logging/index.ts';
import { answer, close, createHttpServer, listen, type RequestHandler, type ServerLimits } from './http.ts';

export interface Endpoint {
  host: string;
  port: number;
  path: string;
}

/** One endpoint to serve: its URL as asked for, and what answers its path. */
export interface Route {
  url: string;
  handle: RequestHandler;
}

/**
 * `http://HOST:PORT/PATH`; HTTP only, as in Kopf. `what` names the endpoint in the error
 * (`The liveness endpoint …`).
 */
export function parseEndpoint(endpoint: string, what = 'liveness endpoint'): Endpoint {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    const example = 'http://0.0.0.0:8080/healthz';
    throw new TypeError(`The ${what} must be a URL such as ${example}, not ${JSON.stringify(endpoint)}.`);
  }
  if (url.protocol !== 'http:') {
    throw new TypeError(`Unsupported scheme of the ${what}: ${endpoint} (only http:// is served).`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  return { host, port: url.port ? Number(url.port) : 80, path: url.pathname || '/' };
}

/** The servers of a set of endpoints: one per distinct host and port. */
export class Endpoints {
  readonly #servers: Server[];
  /** The actual URL of each route, by the URL it was asked for (the port filled in where 0 was asked). */
  readonly #urls: ReadonlyMap<string, string>;

  private constructor(servers: Server[], urls: ReadonlyMap<string, string>) {
    this.#servers = servers;
    this.#urls = urls;
  }

  /**
   * Listens for every route; `limits`: how long a client may take to send its request
   * (servers/http.ts's defaults). Two routes of one path on one host and port are refused.
   */
  static async serve(routes: readonly Route[], logger: Logger, limits?: Partial<ServerLimits>): Promise<Endpoints> {
    const groups = new Map<string, { host: string; port: number; paths: Map<string, Route> }>();
    for (const route of routes) {
      const { host, port, path } = parseEndpoint(route.url);
      const key = `${host}\0${port}`;
      const group = groups.get(key) ?? { host, port, paths: new Map<string, Route>() };
      groups.set(key, group);
      if (group.paths.has(path)) throw new TypeError(`Two endpoints are asked for at the same URL: ${route.url}`);
      group.paths.set(path, route);
    }
    const servers: Server[] = [];
    const urls = new Map<string, string>();
    try {
      for (const { host, port, paths } of groups.values()) {
        const server = await createHttpServer(router(paths), { logger, limits });
        servers.push(server);
        const actualPort = await listen(server, host, port);
        const origin = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
        for (const [path, route] of paths) urls.set(route.url, `${origin}${path}`);
      }
    } catch (error) {
      await Promise.all(servers.map(close));
      throw error;
    }
    return new Endpoints(servers, urls);
  }

  /** The URL an endpoint is served at, by the URL it was asked for. */
  url(asked: string): string | undefined {
    return this.#urls.get(asked);
  }

  /** Stops listening; open connections are closed. */
  async close(): Promise<void> {
    await Promise.all(this.#servers.map(close));
  }
}

function router(routes: ReadonlyMap<string, Route>): RequestHandler {
  return async (request, response) => {
    const requested = pathOf(request);
    if (requested === undefined) return answer(response, 400, 'text/plain', 'The request target is not a URL.\n');
    const route = routes.get(requested);
    if (!route) return answer(response, 404, 'text/plain', 'Not found.\n');
    return route.handle(request, response);
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
