/**
 * Exchanges through an agent of Node's HTTP client: the path for a proxy that the kubeconfig
 * names (`proxy-url`), since client-node gives the proxy as such an agent. The same contract as a
 * pool's (one sink, the abort, the limits for the whole exchange and for its response head),
 * except the limit on opening a connection: the agent opens it through the proxy, out of sight,
 * so only the whole exchange's limit bounds it.
 *
 * Node's HTTP client is taken on first use, not imported: importing `node:http` as an ES module
 * reads every export, and its lazy ones load the fetch and HTTP/2 implementations with it: memory
 * that an operator without a proxy never uses (measured in bench/README.md).
 */
import type { Agent, ClientRequest } from 'node:http';
import type { ExchangeSink } from './connection.ts';
import { hangUpError } from './parser.ts';
import { timeoutError } from './pool.ts';
import type { Exchange } from './pool.ts';

export interface AgentTarget {
  secure: boolean;
  hostname: string;
  port: number;
  prefix: string;
}

export function sendThroughAgent(target: AgentTarget, exchange: Exchange, agent: Agent, sink: ExchangeSink): void {
  const timers: NodeJS.Timeout[] = [];
  let done = false;
  const finish = (error?: Error) => {
    if (done) return;
    done = true;
    timers.forEach(clearTimeout);
    if (error) sink.fail(error);
    else sink.end();
  };
  let req: ClientRequest;
  try {
    const client = target.secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
    req = client.request({
      hostname: target.hostname, port: target.port, path: target.prefix + exchange.path,
      method: exchange.method, headers: exchange.headers, agent, signal: exchange.signal,
    });
  } catch (error) {
    return finish(error as Error);
  }
  const limit = (ms: number | undefined, what: string) => {
    if (ms === undefined) return undefined;
    const timer = setTimeout(() => req.destroy(timeoutError(`${what} timed out after ${ms} ms`)), ms);
    timers.push(timer);
    return timer;
  };
  limit(exchange.timeout, 'the request');
  const headersTimer = limit(exchange.headersTimeout, 'waiting for the response');
  req.once('error', (error) => finish(error));
  req.once('response', (response) => {
    clearTimeout(headersTimer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    sink.head({ status: response.statusCode ?? 0, headers }, {
      pause: () => response.pause(),
      resume: () => response.resume(),
      abandon: () => req.destroy(),
    });
    response.on('data', (chunk: Buffer) => sink.data(chunk));
    response.once('end', () => finish());
    response.once('error', (error) => finish(error));
    response.once('close', () => {
      if (!response.complete) finish(hangUpError());
    });
  });
  if (exchange.body === undefined) req.end();
  else req.end(exchange.body);
}
