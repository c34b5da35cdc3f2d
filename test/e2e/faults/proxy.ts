/**
 * A loopback HTTPS proxy between an operator and the local control plane's kube-apiserver that
 * injects faults into chosen requests: stall one (hold it, connection open, nothing forwarded),
 * cut it (close the connection), answer it without forwarding (429 with Retry-After, 5xx), or
 * silence a response (the head goes through, then nothing more: a watch stream that goes quiet).
 * Discovery can be told to hide a group, a version or a resource. Every fault counts the requests
 * it applied to and lets a test await them, so a test acts at exact points (e.g. kills the
 * operator while its second PATCH of an object is held).
 *
 *   const proxy = await startFaultProxy(cp.credentials);
 *   runOperator({ kubeconfigPath: proxy.kubeconfigPath, … });
 *   const held = proxy.inject({ method: 'PATCH', path: /\/status$/ }, STALL, { nth: 1 });
 *   await held.hits.first;      // the operator sent it; it is held
 *   held.release();             // forward it now (or held.cut())
 *
 * Clients reach the proxy over TLS with a certificate of its own CA (in its kubeconfig) and any
 * client certificate; the proxy talks to kube-apiserver as the control plane's admin.
 */
import { Agent, createServer, request as upstreamRequest, type Server } from 'node:https';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createCertificateAuthority, issueCertificate } from '../../../runtime/certificates/x509.ts';
import { kubeconfigText } from '../../../runtime/testing/controlplane/admin-kubeconfig.ts';
import type { ApiCredentials } from '../../../runtime/testing.ts';
import { discoveryAction, rewriteDiscovery, type Hidden } from './discovery.ts';
import { CUT, Hiding, Injection, type Fault, type InjectOptions, type Passage } from './faults.ts';
import { forwardedHeaders, relayedHeaders, statusBody } from './headers.ts';
import { describeMatch, describeRequest, matches, type Match, type RequestInfo } from './matching.ts';
import { within } from './waiting.ts';

export type { Hidden } from './discovery.ts';
export {
  CUT, Hiding, Injection, SILENCE, STALL, answer, type Fault, type InjectOptions, type Passage,
} from './faults.ts';
export type { Counting, Match, RequestInfo } from './matching.ts';

interface Exchange {
  request: RequestInfo;
  clientReq: IncomingMessage;
  clientRes: ServerResponse;
  /** The injection that holds it (stalled before forwarding, or silenced after the head). */
  heldBy: Injection | null;
  upstream: ClientRequest | null;
  /** The response head went to the client: the body is streaming. */
  streaming: boolean;
  /** The apiserver's answer is complete. */
  done: boolean;
  /** The end of what was relayed to the client (up to RECENT characters), for `relayed()`. */
  recent: string;
}

const RECENT = 64 * 1024;

export class FaultProxy implements AsyncDisposable {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** A kubeconfig file that points at the proxy (removed on close). */
  readonly kubeconfigPath: string;
  /** What happened to each request, in order of arrival. */
  readonly log: Passage[] = [];

  #http: Server;
  #upstream: URL;
  #agent: Agent;
  #credentials: ApiCredentials;
  #dir: string;
  #seq = 0;
  #injections: Injection[] = [];
  #hidings: Hiding[] = [];
  #exchanges = new Set<Exchange>();
  #sockets = new Set<Socket>();
  #watchers = new Set<(passage: Passage) => void>();
  #readers = new Set<(exchange: Exchange, chunk: Buffer) => void>();

  constructor(init: { http: Server; upstream: ApiCredentials; credentials: ApiCredentials; dir: string }) {
    this.#http = init.http;
    this.#upstream = new URL(init.upstream.server);
    const { ca, cert, key } = init.upstream;
    this.#agent = new Agent({ keepAlive: true, ca, cert, key });
    this.#credentials = init.credentials;
    this.server = init.credentials.server;
    this.#dir = init.dir;
    this.kubeconfigPath = join(init.dir, 'kubeconfig.yaml');
    writeFileSync(this.kubeconfigPath, kubeconfigText(init.credentials), { mode: 0o600 });
    this.#http.on('request', (req, res) => this.#accept(req, res));
    this.#http.on('secureConnection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** A fresh client-node KubeConfig that points at the proxy. */
  get kubeconfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromString(kubeconfigText(this.#credentials));
    return config;
  }

  /** Credentials for raw HTTPS clients of the proxy. */
  get credentials(): ApiCredentials {
    return this.#credentials;
  }

  /** Applies `fault` to the matching requests that arrive from now on (those `options` count in). */
  inject(match: Match, fault: Fault, options: InjectOptions = {}): Injection {
    const { open, ...counting } = options;
    const injection = new Injection(this, match, fault, counting);
    this.#injections.push(injection);
    if (open) this.#applyToOpen(injection);
    return injection;
  }

  /** Hides a group, a version or a resource from discovery until the returned hiding is removed. */
  hide(hidden: Hidden): Hiding {
    const hiding = new Hiding(this, hidden);
    this.#hidings.push(hiding);
    return hiding;
  }

  unhide(hiding: Hiding): void {
    this.#hidings = this.#hidings.filter((h) => h !== hiding);
  }

  /**
   * Resolves with the passage of the `count`-th matching request (1 by default) that the apiserver
   * answers from now on, once its answer went to the client (for a watch: once its head did).
   * Rejects if that takes longer than `timeout` ms (60 s by default).
   */
  passed(match: Match, options: { count?: number; status?: number; timeout?: number } = {}): Promise<Passage> {
    const { count = 1, status, timeout = 60_000 } = options;
    let seen = 0;
    const failure = () => `${count} request(s) matching ${describeMatch(match)} did not pass within ${timeout} ms`;
    return within<Passage>(timeout, failure, (settle) => {
      const watcher = (passage: Passage): void => {
        if (passage.outcome !== 'passed' || !matches(match, passage.request)) return;
        if (status !== undefined && passage.status !== status) return;
        if (++seen >= count) settle(passage);
      };
      this.#watchers.add(watcher);
      return () => this.#watchers.delete(watcher);
    });
  }

  /**
   * Resolves once the response to a matching request has passed `text` on to its client (e.g. a
   * watch event with a given resource version): it is written to the client's connection, and no
   * fault injected later holds it back. The recent past of responses still open counts too.
   * Rejects after `timeout` ms (60 s by default).
   */
  relayed(match: Match, text: string, options: { timeout?: number } = {}): Promise<RequestInfo> {
    const { timeout = 60_000 } = options;
    const tails = new WeakMap<Exchange, string>();
    const past = [...this.#exchanges].find((e) => matches(match, e.request) && e.recent.includes(text));
    if (past) return Promise.resolve(past.request);
    const failure = () => `no response to ${describeMatch(match)} passed ${JSON.stringify(text)} within ${timeout} ms`;
    return within<RequestInfo>(timeout, failure, (settle) => {
      const reader = (exchange: Exchange, chunk: Buffer): void => {
        if (!matches(match, exchange.request)) return;
        // The text may straddle two chunks: the end of the previous one is kept.
        const seen = (tails.get(exchange) ?? '') + chunk.toString('utf8');
        if (!seen.includes(text)) return void tails.set(exchange, seen.slice(-text.length));
        settle(exchange.request);
      };
      this.#readers.add(reader);
      return () => this.#readers.delete(reader);
    });
  }

  /** Closes the connections of all matching responses streaming now (e.g. watches); returns how many. */
  cutStreams(match: Match): number {
    const injection = this.inject(match, CUT, { open: true, times: 0 });
    injection.remove();
    return injection.hits.count;
  }

  /** Stops accepting, closes every connection, forgets the kubeconfig. */
  async close(): Promise<void> {
    for (const injection of this.#injections) injection.remove();
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    for (const exchange of this.#exchanges) exchange.upstream?.destroy();
    this.#agent.destroy();
    await closed;
    rmSync(this.#dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  releaseHeldBy(injection: Injection): void {
    for (const exchange of this.#heldBy(injection)) {
      exchange.heldBy = null;
      if (exchange.streaming) continue; // a silenced stream: its next bytes flow again
      this.#note(exchange, 'released');
      this.#forward(exchange);
    }
  }

  cutHeldBy(injection: Injection): void {
    for (const exchange of this.#heldBy(injection)) this.#cut(exchange);
  }

  #heldBy(injection: Injection): Exchange[] {
    return [...this.#exchanges].filter((exchange) => exchange.heldBy === injection);
  }

  #applyToOpen(injection: Injection): void {
    if (injection.fault.kind !== 'silence' && injection.fault.kind !== 'cut') {
      throw new Error(`open: true applies to SILENCE and CUT only, not to ${injection.fault.kind}`);
    }
    for (const exchange of this.#exchanges) {
      if (!exchange.streaming || !matches(injection.match, exchange.request)) continue;
      injection.hits.record(exchange.request);
      if (injection.fault.kind === 'cut') this.#cut(exchange);
      else exchange.heldBy = injection;
    }
  }

  #accept(clientReq: IncomingMessage, clientRes: ServerResponse): void {
    const url = new URL(clientReq.url ?? '/', this.server);
    const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const request: RequestInfo = {
      seq: ++this.#seq, method: clientReq.method ?? 'GET', path: url.pathname, query: url.searchParams, watch,
      headers: clientReq.headers,
    };
    const exchange: Exchange = {
      request, clientReq, clientRes, heldBy: null, upstream: null, streaming: false, done: false, recent: '',
    };
    this.#exchanges.add(exchange);
    clientRes.once('close', () => {
      this.#exchanges.delete(exchange);
      if (!exchange.done) exchange.upstream?.destroy();
    });
    const injection = this.#injections.find((i) => i.claims(request));
    switch (injection?.fault.kind) {
      case 'stall':
        exchange.heldBy = injection;
        return this.#note(exchange, 'stalled');
      case 'cut':
        return this.#cut(exchange);
      case 'status':
        return this.#answer(exchange, injection.fault.status, injection.fault.retryAfter);
      case 'silence':
        exchange.heldBy = injection;
        return this.#forward(exchange);
      default:
        return this.#forward(exchange);
    }
  }

  #note(exchange: Exchange, outcome: Passage['outcome'], status?: number): void {
    const passage: Passage = { request: exchange.request, outcome, ...(status === undefined ? {} : { status }) };
    this.log.push(passage);
    for (const watcher of [...this.#watchers]) watcher(passage);
  }

  #cut(exchange: Exchange): void {
    this.#note(exchange, 'cut');
    exchange.upstream?.destroy();
    exchange.clientRes.destroy();
    exchange.clientReq.socket.destroy();
  }

  #answer(exchange: Exchange, status: number, retryAfter?: number, outcome: Passage['outcome'] = 'answered'): void {
    this.#note(exchange, outcome, status);
    const body = statusBody(status, `injected by the fault proxy: ${describeRequest(exchange.request)}`);
    exchange.clientReq.resume();
    exchange.clientRes.writeHead(status, {
      'content-type': 'application/json', 'content-length': Buffer.byteLength(body),
      ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
    });
    exchange.clientRes.end(body);
  }

  #forward(exchange: Exchange): void {
    const hidings = this.#hidings;
    const action = discoveryAction(hidings.map((h) => h.hidden), exchange.request);
    if (action === 'not-found') {
      for (const hiding of hidings) hiding.hits.record(exchange.request);
      return this.#answer(exchange, 404, undefined, 'hidden');
    }
    const headers = forwardedHeaders(exchange.clientReq.headers, action === 'rewrite');
    const upstream = upstreamRequest({
      host: this.#upstream.hostname, port: this.#upstream.port, agent: this.#agent,
      method: exchange.request.method, path: exchange.clientReq.url, headers,
    });
    exchange.upstream = upstream;
    upstream.on('response', (response) => {
      if (action === 'rewrite') this.#relayRewritten(exchange, response, hidings);
      else this.#relay(exchange, response);
    });
    // The apiserver went away (killed, restarting): the client sees its connection drop, as it would.
    upstream.on('error', () => {
      if (!exchange.clientRes.destroyed) this.#note(exchange, 'failed');
      exchange.clientRes.destroy();
      exchange.clientReq.socket.destroy();
    });
    exchange.clientReq.pipe(upstream);
  }

  #relay(exchange: Exchange, response: IncomingMessage): void {
    const { clientRes } = exchange;
    clientRes.writeHead(response.statusCode ?? 502, relayedHeaders(response.headers));
    clientRes.flushHeaders();
    exchange.streaming = true;
    if (exchange.request.watch) this.#note(exchange, exchange.heldBy ? 'silenced' : 'passed', response.statusCode);
    response.on('data', (chunk: Buffer) => {
      if (exchange.heldBy) return;
      clientRes.write(chunk);
      exchange.recent = (exchange.recent + chunk.toString('utf8')).slice(-RECENT);
      for (const reader of [...this.#readers]) reader(exchange, chunk);
    });
    response.on('end', () => {
      if (!response.complete) return;
      exchange.done = true;
      clientRes.end();
      if (!exchange.request.watch) this.#note(exchange, exchange.heldBy ? 'silenced' : 'passed', response.statusCode);
    });
    // Cut short by the apiserver (killed mid-stream): so is the client's connection.
    response.on('aborted', () => {
      clientRes.destroy();
      exchange.clientReq.socket.destroy();
    });
  }

  #relayRewritten(exchange: Exchange, response: IncomingMessage, hidings: readonly Hiding[]): void {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      exchange.done = true;
      let body = Buffer.concat(chunks);
      if (response.statusCode === 200) {
        const document: unknown = JSON.parse(body.toString('utf8'));
        const rewritten = rewriteDiscovery(hidings.map((h) => h.hidden), exchange.request.path, document);
        body = Buffer.from(JSON.stringify(rewritten));
        for (const hiding of hidings) hiding.hits.record(exchange.request);
      }
      const headers = { ...relayedHeaders(response.headers), 'content-length': body.length };
      exchange.clientRes.writeHead(response.statusCode ?? 502, headers);
      exchange.clientRes.end(body);
      this.#note(exchange, 'passed', response.statusCode);
    });
  }
}

/** Starts a proxy on a free loopback port in front of the apiserver these credentials reach. */
export async function startFaultProxy(upstream: ApiCredentials): Promise<FaultProxy> {
  const ca = createCertificateAuthority('kopf-fault-proxy-ca');
  const serving = issueCertificate(ca, {
    commonName: 'localhost', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'],
  });
  const http = createServer({ cert: serving.cert + ca.cert, key: serving.key });
  // Watches and idle keep-alive connections last as long as the client wants, as with kube-apiserver.
  http.requestTimeout = 0;
  http.keepAliveTimeout = 0;
  http.timeout = 0;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const server = `https://127.0.0.1:${port}`;
  const credentials: ApiCredentials = { server, ca: ca.cert, cert: upstream.cert, key: upstream.key };
  const dir = mkdtempSync(join(tmpdir(), 'kopf-fault-proxy-'));
  return new FaultProxy({ http, upstream, credentials, dir });
}
