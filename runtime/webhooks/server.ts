/**
 * `WebhookServer`: the operator's own HTTPS endpoint for admission reviews, `POST <path>/<handler id>`.
 *
 * Without certificate files, it makes a CA and a serving certificate at start (in memory; the CA
 * can be written out with `caDump`) and tells the API server to trust that CA. Two ways to be
 * reached: by URL (the default: `https://localhost:<port>`, which a local control plane on the
 * same host reaches on loopback; `host` names another), or through a Service in the cluster
 * (`service`), for an operator deployed in it. Unless `addr` says where, it listens on loopback
 * only when neither `host` nor `service` says that it is reached from elsewhere: a developer's
 * operator is not open to the network.
 *
 * With `clientCaFile`, a caller must present a certificate signed by that CA: any other caller,
 * with a certificate or without one, is refused at the TLS handshake, so `sslpeer` only ever
 * holds a verified identity.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, issueCertificate } from '../certificates/x509.ts';
import type {
  AdmissionServer, ServeOptions, WebhookClientConfig, WebhookReply, WebhookResponder,
} from '../config/admission.ts';
import type { Logger } from '../logging/index.ts';
import { refusal } from '../admission/responses.ts';
import { answer, close, createHttpServer, listen, type HttpServerOptions } from '../servers/http.ts';
import { thrownText } from '../structs/errors.ts';
import { aborted } from '../structs/aborts.ts';

export interface WebhookServerOptions {
  /** The address to listen on: loopback by default, all interfaces if `host` or `service` is given. */
  addr?: string;
  /** The port to listen on; a free one by default. */
  port?: number;
  /** The URL path prefix of the webhooks, e.g. `/admission`. */
  path?: string;
  /** The host name in the URL the API server is given; `localhost` (or `addr`, if it is an address) by default. */
  host?: string;
  /** Reached through this Service in the cluster, rather than by URL. Its port is 443 unless given. */
  service?: { namespace: string; name: string; port?: number };
  /** The serving certificate and its key (PEM files), instead of generated ones. */
  certFile?: string;
  keyFile?: string;
  /** The CA bundle the API server is told to trust (PEM file): with `certFile`, that file by default. */
  caFile?: string;
  /** Writes the generated CA certificate to this file, for clients other than the API server. */
  caDump?: string;
  /** More names or addresses for the generated certificate. */
  extraSans?: readonly string[];
  /** Plain HTTP: for a TLS-terminating proxy in front; the API server itself calls only HTTPS. */
  insecure?: boolean;
  /** Callers must present a client certificate signed by this CA bundle (PEM file); seen as `sslpeer`. */
  clientCaFile?: string;
  /** Seconds a caller has to send a request's headers (10 by default); a slower one is disconnected. */
  headersTimeout?: number;
  /** Seconds a caller has to send a whole request (30 by default); a slower one is disconnected. */
  requestTimeout?: number;
}

/** Reviews are small (an object and its old state); a body past this is refused rather than read. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

interface TlsMaterial {
  tls?: HttpServerOptions['tls'];
  caBundle?: string;
}

/** Listening here unless told otherwise: a developer's operator must not be reachable from the network. */
const LOOPBACK = '127.0.0.1';

export class WebhookServer implements AdmissionServer {
  readonly options: WebhookServerOptions;

  constructor(options: WebhookServerOptions = {}) {
    if (Boolean(options.certFile) !== Boolean(options.keyFile)) {
      throw new Error('WebhookServer: `certFile` and `keyFile` go together.');
    }
    this.options = options;
  }

  async *serve(respond: WebhookResponder, options: ServeOptions): AsyncIterable<WebhookClientConfig> {
    const { signal, logger } = options;
    const { tls, caBundle } = await this.tlsMaterial();
    const prefix = (this.options.path ?? '').replace(/\/+$/, '');
    const serving: Serving = { prefix, peers: Boolean(this.options.clientCaFile), respond, logger };
    const handle = (req: IncomingMessage, res: ServerResponse) => serveRequest(req, res, serving);
    const { headersTimeout, requestTimeout } = this.options;
    const server = await createHttpServer(handle, { logger, tls, limits: { headersTimeout, requestTimeout } });
    const addr = this.listeningAddress(logger);
    const port = await listen(server, addr, this.options.port ?? 0);
    try {
      const scheme = tls ? 'https' : 'http';
      logger.debug(`Listening for webhooks at ${scheme}://${addr ?? '*'}:${port}${prefix}`);
      const config = this.clientConfig(scheme, port, prefix, caBundle);
      const where = config.url ?? `service ${config.service!.namespace}/${config.service!.name}`;
      logger.debug(`The API server reaches the webhooks at ${where}`);
      yield config;
      await aborted(signal);
    } finally {
      await close(server);
    }
  }

  /** `addr`, else loopback unless the API server reaches the operator from elsewhere (said in the log). */
  private listeningAddress(logger: Logger): string | undefined {
    const { addr, host, service } = this.options;
    if (addr !== undefined || host !== undefined || service !== undefined) return addr;
    const how = 'set `addr` (--webhook-addr), `host` or `service` to be reached from elsewhere';
    logger.info(`The webhook server listens on loopback (${LOOPBACK}) only: ${how}.`);
    return LOOPBACK;
  }

  private clientConfig(scheme: string, port: number, prefix: string, caBundle?: string): WebhookClientConfig {
    const { service } = this.options;
    const bundle = caBundle === undefined ? {} : { caBundle: Buffer.from(caBundle).toString('base64') };
    if (service) {
      const { namespace, name } = service;
      return { service: { namespace, name, path: prefix || '/', port: service.port ?? 443 }, ...bundle };
    }
    const host = this.urlHost();
    return { url: `${scheme}://${isIP(host) === 6 ? `[${host}]` : host}:${port}${prefix}`, ...bundle };
  }

  private urlHost(): string {
    const { host, addr } = this.options;
    if (host) return host;
    return addr && isIP(addr) && addr !== '0.0.0.0' && addr !== '::' ? addr : 'localhost';
  }

  /** The TLS options and the CA bundle to publish: from the files given, or made now. */
  private async tlsMaterial(): Promise<TlsMaterial> {
    const o = this.options;
    if (o.insecure) return {};
    // Without a verified certificate, no handshake: an unverified peer never reaches `sslpeer`.
    const client = o.clientCaFile
      ? { ca: await readFile(o.clientCaFile, 'utf8'), requestCert: true, rejectUnauthorized: true }
      : {};
    if (o.certFile && o.keyFile) {
      const cert = await readFile(o.certFile, 'utf8');
      const caBundle = o.caFile ? await readFile(o.caFile, 'utf8') : cert;
      return { tls: { cert, key: await readFile(o.keyFile, 'utf8'), ...client }, caBundle };
    }
    const ca = createCertificateAuthority('kopf-webhook-ca');
    const { dns, ip } = this.certificateNames();
    const commonName = dns[0] ?? ip[0] ?? 'localhost';
    const serving = issueCertificate(ca, { commonName, usage: 'server', dnsNames: dns, ipAddresses: ip });
    if (o.caDump) await writeFile(o.caDump, ca.cert);
    return { tls: { cert: serving.cert, key: serving.key, ...client }, caBundle: ca.cert };
  }

  /** Every name the server may be reached by: the URL's host, the Service's names, loopback, the extra ones. */
  private certificateNames(): { dns: string[]; ip: string[] } {
    const { service, addr, extraSans = [] } = this.options;
    const inCluster = `${service?.name}.${service?.namespace}`;
    const serviceNames = service ? [service.name, inCluster, `${inCluster}.svc`, `${inCluster}.svc.cluster.local`] : [];
    const loopback = ['localhost', '127.0.0.1', '::1'];
    const all = [...new Set([...serviceNames, this.urlHost(), ...(addr ? [addr] : []), ...loopback, ...extraSans])]
      .filter((name) => name !== '0.0.0.0' && name !== '::');
    return { dns: all.filter((name) => !isIP(name)), ip: all.filter((name) => isIP(name)) };
  }
}

interface Serving {
  prefix: string;
  /** Whether callers are asked for client certificates. */
  peers: boolean;
  respond: WebhookResponder;
  logger: Logger;
}

/** One request: only `POST` under the prefix; the rest of the path (before the query) names the handler. */
async function serveRequest(req: IncomingMessage, res: ServerResponse, serving: Serving): Promise<void> {
  const { prefix, peers, respond, logger } = serving;
  const refuse = (status: number, message: string, options: { close?: boolean } = {}) => {
    send(res, refusal(logger, status, message), options);
  };
  try {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (path !== prefix && !path.startsWith(`${prefix}/`)) {
      return refuse(404, `No webhooks are served at ${JSON.stringify(path)}.`);
    }
    if (req.method !== 'POST') return refuse(405, `Webhooks accept POST requests only, not ${req.method}.`);
    const rest = path.slice(prefix.length + 1);
    const webhook = rest ? decodeURIComponent(rest) : undefined;
    // A body past the limit is not read (or not further): the connection closes rather than carry it.
    const tooLarge = () => refuse(413, `The request is larger than ${MAX_BODY_BYTES} bytes.`, { close: true });
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return tooLarge();
    const body = await readBody(req);
    if (body === undefined) return tooLarge();
    send(res, await respond({ body, webhook, headers: headersOf(req), sslpeer: peers ? peerOf(req) : {} }));
  } catch (error) {
    // A broken connection or a bad URL escape: said, and answered if there is still someone to answer.
    if (res.headersSent) logger.warning(`A webhook request could not be served: ${thrownText(error)}`);
    else refuse(400, `The request could not be read: ${thrownText(error)}`, { close: true });
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value ?? '';
  }
  return headers;
}

/** The caller's certificate, if the handshake verified it (it refuses any other when a client CA is set). */
function peerOf(req: IncomingMessage): Record<string, unknown> {
  const socket = req.socket as Partial<TLSSocket>;
  if (!socket.authorized) return {};
  const peer = socket.getPeerCertificate?.();
  return peer && Object.keys(peer).length ? { ...peer } : {};
}

/** The body as text, or `undefined` if it is too large (the rest is not read). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else { req.pause(); resolve(undefined); }
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: WebhookReply, options: { close?: boolean } = {}): void {
  answer(res, reply.status, 'application/json', JSON.stringify(reply.body), options);
}
