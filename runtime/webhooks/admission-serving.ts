/**
 * Admission in a running operator: the handlers' resources resolved, the server started with the
 * responder, and — if managed — the webhook configurations created and kept current. Ready once
 * the server listens and the configurations name it; done when the operator stops (the
 * configurations cleaned up first, while the server still answers) or the server ends.
 *
 * The same server answers the API server's ConversionReviews when there are converters
 * (`on.convert`): at the path of a converted CRD's name, which its `spec.conversion` names when
 * managed.
 */
import type { WebhookClientConfig, WebhookResponder } from '../config/admission.ts';
import type { OperatorSettings } from '../config/settings.ts';
import { UnresolvedResourceError, resolveResource, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { EventPoster } from '../posting/index.ts';
import type { Memo } from '../registry/contexts.ts';
import type { Indices } from '../indices/indices.ts';
import { describe } from '../registry/registry.ts';
import type { WebhookHandler, WebhookKind } from '../registry/webhooks.ts';
import { admissionResponder } from '../admission/responder.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import type { ResolvedWebhook } from '../admission/selection.ts';
import { buildWebhooks, ensureConfiguration, writeConfiguration } from './managed.ts';
import type { ConversionHandler } from '../registry/conversions.ts';
import { conversionResponder } from '../conversion/responder.ts';
import { configureConversions, convertedCrds } from './conversion-managed.ts';

export interface AdmissionOptions {
  handlers: readonly WebhookHandler[];
  /** Converters between versions: their ConversionReviews are answered by the same server. */
  conversions?: readonly ConversionHandler[];
  settings: OperatorSettings;
  client: KubeClient;
  poster: EventPoster;
  logger: Logger;
  memo: Memo;
  /** The operator stops. */
  signal: AbortSignal;
  /** The operator's handlers are cancelled. */
  cancelled: AbortSignal;
  indices: Indices;
  /** The operator's metrics, if kept: the reviews answered and the handlers run. */
  metrics?: OperatorMetrics;
}

export interface Admission {
  /** The server listens and the managed configurations (if any) point to it. */
  ready: Promise<void>;
  /** Ended: the operator stopped, or the server did (which stops the operator, as in Kopf). */
  done: Promise<void>;
}

// Mutating first, as the API server calls them and as Kopf writes them.
const KINDS: readonly WebhookKind[] = ['mutating', 'validating'];

/** Starts admission if there are admission handlers or converters; with neither, ready and done at once. */
export function startAdmission(options: AdmissionOptions): Admission {
  if (!options.handlers.length && !options.conversions?.length) {
    return { ready: Promise.resolve(), done: Promise.resolve() };
  }
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => { markReady = resolve; });
  const done = runAdmission(options, markReady);
  const readyOrFailed = Promise.race([ready, done]);
  // Both are awaited by the operator, maybe later than they fail (after peering has had its say).
  for (const promise of [done, readyOrFailed]) promise.catch(() => undefined);
  return { ready: readyOrFailed, done };
}

async function runAdmission(options: AdmissionOptions, markReady: () => void): Promise<void> {
  const { settings, client, logger, signal } = options;
  const server = settings.admission.server;
  if (!server) {
    const what = options.handlers.length ? 'Admission handlers are' : 'Converters (on.convert) are';
    throw new Error(`${what} registered, but no webhook server is configured in `
      + '`settings.admission.server` (e.g. `new WebhookServer()`): see docs/webhooks.md.');
  }
  const webhooks = await resolveWebhooks(client, options.handlers, logger);
  const admitting = options.handlers.length > 0;
  const crds = convertedCrds(options.conversions ?? []);
  const managed = settings.admission.managed;
  if (managed && admitting) for (const kind of KINDS) await ensureConfiguration(client, kind, managed, logger, signal);
  const respond = routedResponder(admissionResponder({ ...options, webhooks }), options.conversions ?? [], logger);
  let current: WebhookClientConfig | undefined;
  const stopServer = new AbortController();
  // On the stop, the cleanup goes first: while it is written, the server still answers.
  let cleaning: Promise<void> | undefined;
  const cleanUp = () => {
    const written = managed && current && admitting
      ? configure(client, webhooks, managed, current, logger, true)
      : Promise.resolve();
    cleaning = written
      .catch((e: unknown) => logger.error('The webhook configurations could not be cleaned up.', e))
      .finally(() => stopServer.abort());
  };
  if (signal.aborted) cleanUp(); else signal.addEventListener('abort', cleanUp, { once: true });
  try {
    for await (const config of server.serve(respond, { signal: stopServer.signal, logger })) {
      current = config;
      if (managed && !signal.aborted && admitting) await configure(client, webhooks, managed, config, logger, false);
      if (managed && !signal.aborted) await configureConversions(client, crds, config, logger);
      markReady();
    }
  } finally {
    signal.removeEventListener('abort', cleanUp);
    stopServer.abort();
    await cleaning;
  }
  if (!signal.aborted) throw new Error('The webhook server has stopped: the operator stops too.');
}

/** Conversion requests come at the path of a converted CRD's name; all others are admission reviews. */
export function routedResponder(
  admission: WebhookResponder, conversions: readonly ConversionHandler[], logger: Logger,
): WebhookResponder {
  if (!conversions.length) return admission;
  const conversion = conversionResponder({ handlers: conversions, logger });
  const converted = new Set(convertedCrds(conversions));
  return (request) => {
    const converting = request.webhook !== undefined && converted.has(request.webhook);
    return (converting ? conversion : admission)(request);
  };
}

async function configure(
  client: KubeClient, webhooks: readonly ResolvedWebhook[], name: string, config: WebhookClientConfig,
  logger: Logger, persistentOnly: boolean,
): Promise<void> {
  for (const kind of KINDS) {
    logger.info(`${persistentOnly ? 'Cleaning up' : 'Reconfiguring'} the ${kind} webhook ${name}.`);
    await writeConfiguration(client, kind, name, buildWebhooks(webhooks, kind, name, config, persistentOnly));
  }
}

/** The handlers with their resources; a name that discovery does not know leaves its handler out, as said. */
async function resolveWebhooks(
  client: KubeClient, handlers: readonly WebhookHandler[], logger: Logger,
): Promise<ResolvedWebhook[]> {
  const resolved: ResolvedWebhook[] = [];
  for (const handler of handlers) {
    if (typeof handler.resource !== 'string') {
      resolved.push({ handler, resource: handler.resource });
      continue;
    }
    try {
      resolved.push({ handler, resource: await resolveResource(client, handler.resource) });
    } catch (error) {
      if (!(error instanceof UnresolvedResourceError)) throw error;
      const what = `its resource ${describe(handler.resource)} is unresolved`;
      logger.warning(`The admission handler '${handler.id}' is not served: ${what}: ${error.message}`);
    }
  }
  return resolved;
}
