/**
 * The operator's HTTP endpoints: the liveness endpoint (the probes' results while the operator
 * runs and its watches are fresh) and the metrics, each if asked for, on one server where they name
 * the same host and port. The metrics' library is loaded only when metrics are asked for, so that
 * an operator without them loads none of it.
 */
import type { Logger } from '../logging/index.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import { operatorLiveness, type Liveness } from '../activities/liveness.ts';
import type { ActivityEnv } from '../activities/activities.ts';
import { Endpoints, type Route } from '../servers/endpoints.ts';
import type { PrometheusMetrics } from '../metrics/prometheus.ts';

/** The metrics' instruments if `url` asks for them, with the operator's pause as a gauge. */
export async function loadMetrics(url: string | undefined, pauses: ToggleSet): Promise<PrometheusMetrics | undefined> {
  if (url === undefined) return undefined;
  const { PrometheusMetrics } = await import('../metrics/prometheus.ts');
  const metrics = new PrometheusMetrics();
  metrics.observe('paused', {}, () => pauses.on ? 1 : 0);
  return metrics;
}

/** Serves what `urls` name; `undefined` when they name nothing. */
export async function serveEndpoints(
  urls: { liveness?: string; metrics?: string }, liveness: Liveness, metrics: PrometheusMetrics | undefined,
  env: ActivityEnv, logger: Logger,
): Promise<Endpoints | undefined> {
  const routes: Route[] = [];
  if (urls.liveness !== undefined) {
    routes.push(operatorLiveness(urls.liveness, liveness, env, logger.child('kopf.activities.probe')));
  }
  if (urls.metrics !== undefined && metrics) {
    const { metricsRoute } = await import('../metrics/endpoint.ts');
    routes.push(metricsRoute(urls.metrics, metrics, logger.child('kopf.metrics')));
  }
  if (!routes.length) return undefined;
  const endpoints = await Endpoints.serve(routes, logger.child('kopf.endpoints'));
  const said = logger.child('kopf.operator');
  if (urls.liveness !== undefined) said.debug(`Serving health status at ${endpoints.url(urls.liveness)}`);
  if (urls.metrics !== undefined) said.debug(`Serving metrics at ${endpoints.url(urls.metrics)}`);
  return endpoints;
}
