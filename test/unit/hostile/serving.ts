/**
 * A process that runs every server of the runtime, as an operator runs them, for the hostile-input
 * tests to attack from outside: the liveness endpoint and the metrics (one server, as an operator
 * serves them on one host and port), the webhook server over HTTPS (with the real
 * admission responder and a mutating handler) and the webhook server over plain HTTP (`insecure`).
 * It installs no guard of its own: a rejection that escapes a server ends it, as it would end an
 * operator without `kopf run`'s guard.
 *
 * Prints one JSON line with the servers' URLs and the CA, then serves until SIGTERM.
 * `node serving.ts [HEADERS_TIMEOUT REQUEST_TIMEOUT]` (seconds; the servers' defaults without them).
 */
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { AdmissionServer, WebhookClientConfig } from '../../../runtime/config/admission.ts';
import { livenessRoute } from '../../../runtime/activities/probing.ts';
import { metricsRoute } from '../../../runtime/metrics/endpoint.ts';
import { PrometheusMetrics } from '../../../runtime/metrics/prometheus.ts';
import { Endpoints } from '../../../runtime/servers/endpoints.ts';
import { admissionResponder } from '../../../runtime/admission/responder.ts';
import { OperatorIndexers } from '../../../runtime/indices/indexers.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { clientOf } from '../kube/fake-server.ts';

const [headersTimeout, requestTimeout] = process.argv.slice(2).map(Number);
const limits = headersTimeout && requestTimeout ? { headersTimeout, requestTimeout } : {};

const logger = new Logger(new LogConfig({ verbosity: 'debug' }), 'kopf');
const settings = defaultSettings();
const registry = new OperatorRegistry();
registry.on.mutate(KopfExample, function label({ patch }) {
  patch.metadata.labels.mutated = 'yes';
});
const respond = admissionResponder({
  webhooks: registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample })),
  client: clientOf({ url: 'http://127.0.0.1:9' }), // the handler never calls it
  settings, poster: new EventPoster({ post: async () => undefined, settings, logger }), logger, memo: {},
  cancelled: new AbortController().signal, indices: new OperatorIndexers([]).indices,
});

const stop = new AbortController();
const urls = { liveness: 'http://127.0.0.1:0/healthz', metrics: 'http://127.0.0.1:0/metrics' };
const endpoints = await Endpoints.serve([
  livenessRoute(urls.liveness, { probe: async () => new Map([['alive', true]]), problem: () => null }, logger),
  metricsRoute(urls.metrics, new PrometheusMetrics(), logger),
], logger, limits);

/** Starts serving; the first client config, and the promise of the end of serving. */
async function serve(server: AdmissionServer): Promise<{ config: WebhookClientConfig; ended: Promise<void> }> {
  const iterator = server.serve(respond, { signal: stop.signal, logger })[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { config: first.value as WebhookClientConfig, ended: iterator.next().then(() => undefined) };
}

const secure = await serve(new WebhookServer({ addr: '127.0.0.1', path: '/hooks', ...limits }));
const plain = await serve(new WebhookServer({ addr: '127.0.0.1', path: '/hooks', insecure: true, ...limits }));
process.stdout.write(`${JSON.stringify({
  liveness: endpoints.url(urls.liveness),
  metrics: endpoints.url(urls.metrics),
  webhook: secure.config.url,
  ca: Buffer.from(secure.config.caBundle!, 'base64').toString(),
  plain: plain.config.url,
})}\n`);

process.once('SIGTERM', () => {
  stop.abort();
  void Promise.all([secure.ended, plain.ended, endpoints.close()]).then(() => process.exit(0));
});
