/**
 * Posting Events through the API client: a POST to core v1 `events` in the event's namespace.
 * Retries of retryable failures (network, 5xx, 429) are the client's, per its error backoffs.
 */
import { Events } from '../structs/builtins.ts';
import { resourcePath } from '../structs/resources.ts';
import type { PostEvent } from './poster.ts';

/** The part of the API client that posting needs. */
export interface EventApi {
  request(method: string, path: string, options: { body?: unknown; signal?: AbortSignal }): Promise<unknown>;
}

export function postEventVia(api: EventApi): PostEvent {
  return async (body, signal) => {
    await api.request('POST', resourcePath(Events, { namespace: body.metadata.namespace }), { body, signal });
  };
}
