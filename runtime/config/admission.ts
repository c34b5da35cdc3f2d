/**
 * How the operator and a webhook server talk (`settings.admission.server`): the server listens,
 * hands each request to the operator's responder and sends back what it answers, and tells the
 * operator how the API server reaches it (a client config, again whenever that changes).
 */
import type { Logger } from '../logging/logger.ts';

/** Where the API server sends admission reviews: a URL, or a Service in the cluster; and the CA to trust. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** The PEM bundle of the CA that signed the server's certificate, base64-encoded. */
  caBundle?: string;
}

/** One HTTP request a webhook server received. */
export interface WebhookRequest {
  /** The request's body as sent: an AdmissionReview in JSON, if the caller is well-behaved. */
  body: string;
  /** The handler id the URL path names after the server's path prefix; `undefined` if none. */
  webhook: string | undefined;
  headers: Readonly<Record<string, string>>;
  /** The caller's client certificate, if it presented one; `{}` otherwise. */
  sslpeer: Readonly<Record<string, unknown>>;
}

/** The answer to send: an HTTP status and a JSON body (an AdmissionReview, or a Status saying what was wrong). */
export interface WebhookReply {
  status: number;
  body: unknown;
}

export type WebhookResponder = (request: WebhookRequest) => Promise<WebhookReply>;

/**
 * A webhook server: serves `respond` until `signal` is aborted, yielding its client config when it
 * is listening and again whenever it changes (new certificates). When the iteration ends, the
 * operator stops.
 */
export interface AdmissionServer {
  serve(respond: WebhookResponder, options: ServeOptions): AsyncIterable<WebhookClientConfig>;
}

export interface ServeOptions {
  /** Aborted when the operator stops: the server stops serving, and its iteration ends. */
  signal: AbortSignal;
  logger: Logger;
}

/**
 * The webhook request itself is bad (not the API request under review, nor an object to convert):
 * it is answered with this HTTP status (`statusReply`), and the API server applies the webhook's
 * failure policy. Admission and conversion both throw it; it lives here, below both engines.
 */
export class WebhookError extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.name = 'WebhookError';
    this.status = status;
  }
}

/** An answer to a webhook request that cannot be reviewed, as a Kubernetes `Status`: what API clients read. */
export function statusReply(code: number, message: string): WebhookReply {
  return { status: code, body: { apiVersion: 'v1', kind: 'Status', status: 'Failure', message, code } };
}
