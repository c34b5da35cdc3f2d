/**
 * The metrics endpoint (`kopf run --metrics http://0.0.0.0:9090/metrics`): a GET of its path
 * answers with the operator's metrics in Prometheus's text format. It is a route of the runtime's
 * endpoints (`servers/endpoints.ts`): with the liveness endpoint on the same host and port, one
 * server serves both paths.
 */
import type { Logger } from '../logging/index.ts';
import { answer } from '../servers/http.ts';
import { parseEndpoint, type Route } from '../servers/endpoints.ts';
import { thrownText } from '../structs/errors.ts';
import type { PrometheusMetrics } from './prometheus.ts';

export function metricsRoute(url: string, metrics: PrometheusMetrics, logger: Logger): Route {
  parseEndpoint(url, 'metrics endpoint'); // a bad URL is refused before anything is served
  return {
    url,
    handle: async (request, response) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return answer(response, 405, 'text/plain', 'Only GET is served.\n');
      }
      let exposition: { type: string; text: string };
      try {
        exposition = await metrics.exposition();
      } catch (error) {
        // A gauge's reader that throws is a bug of the runtime; the scrape says so, and the log says why.
        logger.error(`Collecting the metrics failed: ${thrownText(error)}`, error);
        return answer(response, 500, 'text/plain', 'Collecting the metrics failed; the operator\'s log says why.\n');
      }
      answer(response, 200, exposition.type, exposition.text);
    },
  };
}
