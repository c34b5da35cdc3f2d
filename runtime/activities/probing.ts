/**
 * The liveness endpoint (`kopf run --liveness=http://0.0.0.0:8080/healthz`): a GET of its path
 * answers with the probe handlers' results by handler id, as JSON (`{}` without probes), as Kopf's
 * does. The results are collected again at most every 10 s, one collection at a time.
 *
 * Beyond Kopf, it is red (503, the reason as text) when the operator is not running — stopping,
 * or not serving yet — and when a watch stream has been silent past its inactivity timeout
 * without being re-established: liveness says the watches are fresh, not only that the process
 * is up. A probe that fails for good makes it answer 500, naming the probe but not its message
 * (which may hold a connection string, and anyone who reaches the endpoint would read): the
 * message goes to the log. A request it cannot read is answered 400, as every server of the
 * runtime answers one (servers/http.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logging/index.ts';
import { answer, type RequestHandler } from '../servers/http.ts';
import { parseEndpoint, type Route } from '../servers/endpoints.ts';
import { thrownText } from '../structs/errors.ts';
import { ActivityError } from './activities.ts';

/** Kopf's caching period of the probes' results. */
const PROBING_MAX_AGE_MS = 10_000;

export interface LivenessSource {
  /** Runs the probe handlers; their results by handler id. */
  probe(): Promise<ReadonlyMap<string, unknown>>;
  /** Why the operator is not alive, or `null` if it is. */
  problem(): string | null;
}

/** The liveness endpoint's route, to be served with the others of its host and port (`servers/endpoints.ts`). */
export function livenessRoute(url: string, source: LivenessSource, logger: Logger): Route {
  parseEndpoint(url); // a bad URL is refused before anything is served
  return { url, handle: responder(source, logger) };
}

function responder(source: LivenessSource, logger: Logger): RequestHandler {
  let cached: { at: number; body: string } | undefined;
  let collecting: Promise<string> | undefined;
  const collect = async (): Promise<string> => {
    if (cached && Date.now() - cached.at < PROBING_MAX_AGE_MS) return cached.body;
    collecting ??= source.probe()
      .then((results) => (cached = { at: Date.now(), body: JSON.stringify(Object.fromEntries(results)) }).body)
      .finally(() => { collecting = undefined; });
    return collecting;
  };
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return answer(response, 405, 'text/plain', 'Only GET is served.\n');
    }
    const problem = source.problem();
    if (problem) return answer(response, 503, 'text/plain', `${problem}\n`);
    try {
      answer(response, 200, 'application/json', await collect());
    } catch (error) {
      logger.error(`The probes failed: ${thrownText(error)}`);
      const ids = error instanceof ActivityError ? error.failures.map((failure) => failure.id) : [];
      const which = ids.length ? `: ${ids.join(', ')}` : '';
      answer(response, 500, 'text/plain', `The probes failed${which}; the operator's log says why.\n`);
    }
  };
}
