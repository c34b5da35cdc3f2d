/**
 * The operator's API client: its credentials (login handlers, a kubeconfig, or the default
 * loading rules) and its knobs, from Kopf's networking and watching settings.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/index.ts';
import { ApiError, KubeClient, type KubeClientOptions, type RequestTrace, type RetryNotice } from '../kube/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { ApiMetrics } from '../observation/metrics.ts';
import type { ActivityHandler } from '../registry/handlers.ts';
import type { ActivityEnv } from '../activities/activities.ts';
import { loginVault } from '../activities/authentication.ts';

/**
 * A new client: with the credentials of the login handlers if there are any (Kopf's `on.login`),
 * else of the given kubeconfig, else of the default one.
 */
export function newClient(
  settings: OperatorSettings, logger: Logger, logins: readonly ActivityHandler[], env: ActivityEnv,
  kubeconfig?: KubeConfig, metrics?: ApiMetrics,
): KubeClient {
  const options = { ...clientOptions(settings, logger), metrics };
  if (logins.length) return new KubeClient(loginVault(logins, env), options);
  return kubeconfig ? KubeClient.fromKubeConfig(kubeconfig, options) : KubeClient.fromDefault(options);
}

/** The client's knobs, from Kopf's networking and watching settings; its requests logged with `--debug`. */
function clientOptions(settings: OperatorSettings, logger: Logger): KubeClientOptions {
  const n = settings.networking, w = settings.watching;
  const api = logger.child('kopf.api');
  const trace = logger.config.verbosity === 'debug'
    ? (t: RequestTrace) => api.debug(`${t.method} ${t.path} → ${t.status || 'no response'} in ${t.ms.toFixed(1)} ms`)
    : undefined;
  // Retries of a failing request can take a minute: each is said, so that it does not look like a hang.
  const onRetry = (r: RetryNotice) => {
    const what = r.error instanceof ApiError ? r.error.message : `${r.method} ${r.path}: ${thrownText(r.error)}`;
    api.warning(`Request attempt #${r.attempt}/${r.attempts} failed; retrying in ${r.delay.toFixed(1)} s: ${what}`);
  };
  return {
    trace, onRetry,
    requestTimeout: n.requestTimeout ?? undefined,
    connectTimeout: n.connectTimeout ?? undefined,
    errorBackoffs: [...n.errorBackoffs],
    enforceRetryAfter: n.enforceRetryAfter,
    readCoalescing: n.readCoalescing,
    watchReconnectBackoff: w.reconnectBackoff,
    watchInactivityTimeout: w.inactivityTimeout,
    streamingLists: w.streamingLists,
  };
}
