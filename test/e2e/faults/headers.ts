/**
 * What the fault proxy passes on between a client and kube-apiserver, and what it answers by
 * itself: headers of one connection stay on it, and an injected answer is a Kubernetes Status.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Headers of one connection, not of the request: each side of the proxy has its own. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te', 'trailer',
]);

/** The end-to-end headers, as a response from the apiserver is relayed to the client. */
export function relayedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const relayed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) relayed[name] = value;
  }
  return relayed;
}

/** The end-to-end headers of a client's request, as it is forwarded to the apiserver. */
export function forwardedHeaders(headers: IncomingHttpHeaders, plainDiscovery: boolean): OutgoingHttpHeaders {
  const forwarded = relayedHeaders(headers);
  // A discovery answer to rewrite must be plain JSON: no compression, no aggregated discovery.
  if (plainDiscovery) {
    delete forwarded['accept-encoding'];
    forwarded.accept = 'application/json';
  }
  return forwarded;
}

/** The body of an answer the proxy gives instead of the apiserver, as the apiserver words a failure. */
export function statusBody(status: number, message: string): string {
  const reason = status === 429 ? 'TooManyRequests' : status === 404 ? 'NotFound' : 'InternalError';
  const failure = { status: 'Failure', message, reason, code: status };
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, ...failure });
}
