/**
 * A tiny API server for unit tests of the API layer: plain HTTP on 127.0.0.1, a handler per test,
 * and a log of what it received (with arrival times, so tests can assert server-observed gaps).
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, staticCredentials } from '../../../runtime/kube/index.ts';
import type { KubeClientOptions } from '../../../runtime/kube/index.ts';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Handler = (req: Received, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface FakeServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<FakeServer> {
  const received: Received[] = [];
  const server = http.createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const url = new URL(raw.url ?? '/', 'http://x');
      const req: Received = {
        method: raw.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'), at: performance.now(),
      };
      received.push(req);
      Promise.resolve(handler(req, res, raw)).catch((e: unknown) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A kubeconfig for a fake server (a token user), for operators that make their own client. */
export function kubeconfigOf(server: { url: string }): KubeConfig {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions(
    {
      clusters: [{ name: 'c', server: server.url }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    }
  );
  return kubeconfig;
}

/** A client of a fake server with fast retries, unless the test says otherwise. */
export function clientOf(server: { url: string }, options: KubeClientOptions = {}): KubeClient {
  return new KubeClient(
    staticCredentials({ server: server.url, headers: {}, tls: {} }),
    { errorBackoffs: [0.01, 0.01, 0.01], ...options },
  );
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function status(code: number, reason: string, message: string, details?: object): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    ...(details ? { details } : {})
  };
}

/** A promise and the function that resolves it (Promise.withResolvers is newer than the type check's lib). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}
