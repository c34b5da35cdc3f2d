/**
 * A continuous watch: the objects there are, then their changes, restored for as long as the
 * process wants it.
 *
 * - The objects there are come as the first WATCH's initial events (`sendInitialEvents`, ended by a
 *   bookmark that says so): one request, and the API server streams them from its cache instead of
 *   holding a whole list. A server that refuses it (older ones, or one whose storage cannot promise
 *   the bookmark) gets a paginated LIST and then a WATCH from the list's resourceVersion, for the rest
 *   of the watch's life; so does a watch with `streamingList: false`.
 * - Every listing, streamed or paged, yields `LISTED` per object and `LISTED_DONE`. A re-list also yields a synthetic
 *   `DELETED` (before `LISTED_DONE`) for each object known before it and absent from it, so a
 *   consumer learns of deletions it missed while the watch was broken. The synthetic event carries
 *   the object's identity only (apiVersion, kind, name, namespace, uid, last resourceVersion): the
 *   stream keeps that much per known object, not whole bodies, so its memory stays small at 10,000s
 *   of objects. `synthesizeDeletions: false` turns it off.
 * - The resourceVersion of every event, bookmarks included, is where the next WATCH resumes.
 *   A clean end of a stream (server timeout) resumes after `reconnectBackoff`, without a re-list.
 * - 410 Gone (as an HTTP status or an in-stream `ERROR`) re-lists.
 * - Network errors, 5xx, 429 (honouring `Retry-After`), malformed or oversized lines and silence beyond
 *   `inactivityTimeout` (a response that does not come, too) are failures: each is retried after the
 *   next delay of `errorBackoffs`; any event received resets the count. When the budget is spent, the iterator throws a
 *   `WatchError` with the last cause: a watch never ends silently.
 * - Other HTTP errors (403, 404, …) are thrown at once, as are failures of a LIST after the
 *   client's own retries.
 * - `signal` ends the iteration cleanly and closes the socket; so does leaving a `for await` loop.
 */
import { resourceName, resourcePath } from '../../structs/resources.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../../structs/resources.ts';
import { sleep } from '../backoff.ts';
import type { KubeClient } from '../client.ts';
import { WatchError, isGone, isRetryable, isTooManyRequests } from '../api-errors.ts';
import { listPages, METADATA_ITEM } from '../listing.ts';
import type { RequestOptions, StreamEvent } from '../types.ts';
import type { StreamedResponse } from '../transport.ts';
import { InactivityError, MalformedStreamError, readJsonLines } from './reader.ts';
import type { StreamLiveness } from './freshness.ts';
import { toEvent, type WatchEvent } from './events.ts';
import {
  INITIAL_SILENCE_MS, InitialSilence, StreamingRefused, endsInitialEvents, initialEvent, refusesInitialEvents,
} from './initial-events.ts';
import type { WatchMetrics, WatchRestartReason } from '../../observation/metrics.ts';

export interface WatchOptions {
  /** One namespace; all namespaces if absent (and for cluster-scoped resources). */
  namespace?: string | null;
  labelSelector?: string;
  fieldSelector?: string;
  /** Ends the stream cleanly. */
  signal?: AbortSignal;
  /** Seconds of silence before the stream is re-established; the client's setting by default (70). */
  inactivityTimeout?: number;
  /** Seconds between a stream's clean end and the next; the client's setting by default (0.1). */
  reconnectBackoff?: number;
  /** Seconds before each retry after consecutive failures; the client's `errorBackoffs` by default. */
  errorBackoffs?: readonly number[];
  /** `timeoutSeconds` of each WATCH request: the server ends the stream after it (Kopf: `watching.server_timeout`). */
  serverTimeout?: number;
  /** Events read ahead of the consumer before the socket is paused. */
  bufferSize?: number;
  /** Objects per page of a listing. */
  pageSize?: number;
  /** List as the watch's initial events (the client's `streamingLists` by default); else by a paginated LIST. */
  streamingList?: boolean;
  /** Yield synthetic `DELETED` events after re-lists (default true). */
  synthesizeDeletions?: boolean;
  /**
   * The objects' metadata only (`PartialObjectMetadata`, whatever their kind), in listings and
   * events: less to send, parse and hold, for consumers that need no more.
   */
  metadataOnly?: boolean;
  /** Start watching from this resourceVersion instead of listing first. */
  resourceVersion?: string;
  /** Told when the server refuses a streamed listing (with its answer), before the watch lists in pages instead. */
  onStreamingRefused?: (cause: unknown) => void;
  /** Told of each event of a type this stream does not know (it is skipped), for a warning. */
  onUnsupported?: (raw: unknown) => void;
  /** Told whenever the server is heard from, and of each wait before a retry (for the liveness endpoint). */
  liveness?: StreamLiveness;
  /** Told of each event received and each stream opened again (the operator's metrics). */
  metrics?: WatchMetrics;
}

const DEFAULT_BUFFER_SIZE = 1000;
/** What one watch carries from stream to stream: where to resume, and what it knows of. */
interface WatchState<T extends KubeObject> {
  resourceVersion: string | undefined;
  mustList: boolean;
  /** Whether the next listing is a stream's initial events; false once the server refused them. */
  streaming: boolean;
  /** Consecutive failures; any event received resets it. */
  failures: number;
  /** Identities of the objects seen, for synthetic deletions; absent when those are off. */
  known: Map<string, T> | undefined;
}

/** The settings of one watch, resolved once from its options and the client's defaults. */
interface WatchContext<T extends KubeObject> {
  client: KubeClient;
  resource: ResourceDescriptor<T, FieldMap>;
  options: WatchOptions;
  path: string;
  errorBackoffs: readonly number[];
  reconnectMs: number;
  inactivityMs: number;
}

export async function* watchStream<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T, FieldMap>,
  options: WatchOptions = {},
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  const settings = client.settings;
  const signal = options.signal;
  const context: WatchContext<T> = {
    client,
    resource,
    options,
    path: resourcePath(resource, { namespace: options.namespace }),
    errorBackoffs: options.errorBackoffs ?? settings.errorBackoffs,
    reconnectMs: (options.reconnectBackoff ?? settings.watchReconnectBackoff) * 1000,
    inactivityMs: (options.inactivityTimeout ?? settings.watchInactivityTimeout) * 1000,
  };
  const state: WatchState<T> = {
    resourceVersion: options.resourceVersion,
    mustList: options.resourceVersion === undefined,
    streaming: options.streamingList ?? settings.streamingLists,
    failures: 0,
    known: options.synthesizeDeletions === false ? undefined : new Map<string, T>(),
  };

  for (;;) {
    if (signal?.aborted) return;
    let wait = context.reconnectMs;
    try {
      if (state.mustList && !state.streaming) {
        state.resourceVersion = yield* relistOrFail(context, state.known);
        state.mustList = false;
        state.failures = 0;
      }
      yield* readOneStream(context, state);
      if (!signal?.aborted) options.metrics?.restart('closed');
    } catch (e) {
      if (signal?.aborted) return;
      wait = refusedStreaming(state, e) ? pagedFromNowOn(context, state, e) : waitAfterError(context, state, e);
    }
    if (!(await sleep(wait, signal))) return;
  }
}

/**
 * Whether a failure of a streamed listing is the server's refusal of it. Silence counts: a server
 * that ignores the request for initial events (one that is no Kubernetes API server, or a proxy
 * that drops the parameters) goes quiet without the bookmark that ends them.
 */
function refusedStreaming(state: WatchState<KubeObject>, e: unknown): boolean {
  return e instanceof StreamingRefused || (state.streaming && state.mustList && e instanceof InactivityError);
}

/** After a refused streamed listing: the watch lists in pages, at once and from now on. */
function pagedFromNowOn<T extends KubeObject>(context: WatchContext<T>, state: WatchState<T>, e: unknown): number {
  state.streaming = false;
  context.options.onStreamingRefused?.(e instanceof StreamingRefused ? e.cause : e);
  return 0;
}

/** A re-list whose failure (after the client's own retries) ends the watch, except 410 which the caller re-lists. */
async function* relistOrFail<T extends KubeObject>(
  context: WatchContext<T>,
  known: Map<string, T> | undefined,
): AsyncGenerator<StreamEvent<T>, string, undefined> {
  try {
    return yield* relist(context, known);
  } catch (e) {
    if (context.options.signal?.aborted || isGone(e)) throw e;
    throw new WatchError(`Listing ${resourceName(context.resource)} failed`, e);
  }
}

/** Lists everything, then deletes (synthetically) what was known and is no longer listed. */
async function* relist<T extends KubeObject>(
  context: WatchContext<T>,
  known: Map<string, T> | undefined,
): AsyncGenerator<StreamEvent<T>, string, undefined> {
  const { client, resource, options } = context;
  const liveness = options.liveness;
  const seen = new Set<string>();
  let listedVersion = '';
  const pages = listPages(
    client,
    resource,
    {
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      pageSize: options.pageSize,
      signal: options.signal,
      metadataOnly: options.metadataOnly,
    },
  );
  for await (const page of pages) {
    liveness?.alive();
    if (page.restarted) seen.clear();
    for (const object of page.items) {
      const key = keyOf(object);
      seen.add(key);
      known?.set(key, identityOf(object));
      yield { type: 'LISTED', object };
    }
    listedVersion = page.resourceVersion;
  }
  yield* listingDone(known, seen, listedVersion);
  return listedVersion;
}

/** The end of a listing: what was known and is no longer there is deleted (synthetically), then `LISTED_DONE`. */
function* listingDone<T extends KubeObject>(
  known: Map<string, T> | undefined,
  seen: Set<string>,
  resourceVersion: string,
): Generator<StreamEvent<T>, void, undefined> {
  if (known) {
    for (const [key, object] of known) {
      if (seen.has(key)) continue;
      known.delete(key);
      yield { type: 'DELETED', object, synthetic: true };
    }
  }
  yield { type: 'LISTED_DONE', resourceVersion };
}

/**
 * One WATCH request, read to its end; every event moves the resume point and the known identities.
 * If a listing is due, the request asks for the objects there are as its initial events: those are
 * yielded as `LISTED` until the bookmark that ends them, which ends the listing.
 */
async function* readOneStream<T extends KubeObject>(
  context: WatchContext<T>,
  state: WatchState<T>,
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  const { options } = context;
  const signal = options.signal;
  const liveness = options.liveness;
  const listing = state.mustList ? new Set<string>() : undefined;
  // The newest state, read consistently, as initial events; or the changes since where the last stream ended.
  const start = listing
    ? { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' }
    : { resourceVersion: state.resourceVersion };
  const response = await openOrRefused(context, listing !== undefined, {
    watch: 'true',
    allowWatchBookmarks: 'true',
    ...start,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    timeoutSeconds: options.serverTimeout,
  });
  liveness?.alive();
  const silence = listing && new InitialSilence(Math.min(INITIAL_SILENCE_MS, context.inactivityMs));
  const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
  const reading = silence ? AbortSignal.any([silence.signal, ...signal ? [signal] : []]) : signal;
  const reader = readJsonLines(response.body, { inactivityTimeout: context.inactivityMs, bufferSize, signal: reading });
  const phase: StreamPhase = { listing };
  try {
    for await (const raw of reader) {
      silence?.disarm();
      try {
        yield* eventsOfLine(context, state, phase, raw);
      } finally {
        if (phase.listing) silence?.arm();
      }
    }
  } finally {
    silence?.stop();
  }
  // A stream that ends, or goes quiet, before the bookmark that ends its initial events came from a
  // server that does not send one (an API server without its watch cache sends the objects alone).
  if (phase.listing) {
    throw new StreamingRefused(silence?.expired
      ? `no bookmark ended the initial events within ${silence.ms} ms`
      : 'the stream ended before its initial events were complete');
  }
}

/** Where a stream is: within its initial events (the keys listed so far), or past them. */
interface StreamPhase {
  listing: Set<string> | undefined;
}

/** What one line of a stream yields: an event, a listed object, the end of the listing, or nothing. */
function* eventsOfLine<T extends KubeObject>(
  context: WatchContext<T>,
  state: WatchState<T>,
  phase: StreamPhase,
  raw: unknown,
): Generator<StreamEvent<T>, void, undefined> {
  const { options, path } = context;
  options.liveness?.alive();
  const event = phase.listing ? initialEvent<T>(raw, path) : toEvent<T>(raw, path);
  state.failures = 0;
  if (!event) return options.onUnsupported?.(raw);
  if (phase.listing && event.type === 'BOOKMARK') {
    // Only the bookmark that ends the initial events means anything within them.
    if (!endsInitialEvents(raw)) return;
    state.resourceVersion = event.resourceVersion || state.resourceVersion;
    state.mustList = false;
    yield* listingDone(state.known, phase.listing, state.resourceVersion ?? '');
    phase.listing = undefined;
    return;
  }
  track(state, event);
  if (phase.listing && event.type === 'ADDED') {
    phase.listing.add(keyOf(event.object));
    yield { type: 'LISTED', object: event.object };
    return;
  }
  options.metrics?.event(event.type);
  yield event;
}

/** Where the next stream resumes, and the identities known, after one event of a stream. */
function track<T extends KubeObject>(state: WatchState<T>, event: WatchEvent<T>): void {
  if (event.type === 'BOOKMARK') {
    state.resourceVersion = event.resourceVersion || state.resourceVersion;
    return;
  }
  state.resourceVersion = event.object.metadata?.resourceVersion || state.resourceVersion;
  if (state.known && event.type === 'DELETED') state.known.delete(keyOf(event.object));
  else if (state.known) state.known.set(keyOf(event.object), identityOf(event.object));
}

/**
 * Opens a WATCH; one that asks for initial events and is answered 400 or 422 (a parameter the server
 * does not accept) was refused them. Other answers mean what they mean for any request (a 404: the
 * resource is not served; a 403: not allowed).
 */
async function openOrRefused<T extends KubeObject>(
  context: WatchContext<T>,
  listing: boolean,
  query: RequestOptions['query'],
): Promise<StreamedResponse> {
  try {
    return await openWithinInactivity(context, query);
  } catch (e) {
    if (listing && refusesInitialEvents(e)) throw new StreamingRefused(e);
    throw e;
  }
}

/**
 * Opens the WATCH request. A server that accepts it and never answers is as silent as a stream that
 * stops talking: it is given up after the inactivity timeout (`InactivityError`), not after the
 * client's request timeout, which is minutes.
 */
async function openWithinInactivity<T extends KubeObject>(
  context: WatchContext<T>,
  query: RequestOptions['query'],
): Promise<StreamedResponse> {
  const { client, options, path, inactivityMs } = context;
  const silence = new AbortController();
  const timer = setTimeout(() => silence.abort(new InactivityError(inactivityMs)), inactivityMs);
  const signal = options.signal ? AbortSignal.any([options.signal, silence.signal]) : silence.signal;
  try {
    return await client.openStream(path, { query, signal, accept: options.metadataOnly ? METADATA_ITEM : undefined });
  } catch (e) {
    if (silence.signal.aborted && !options.signal?.aborted) throw silence.signal.reason;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a broken stream leads to, as the milliseconds to wait before the next one: a re-list after the
 * usual reconnect pause for 410, the next backoff for a failure worth retrying; anything else, or a
 * spent budget, is thrown.
 */
function waitAfterError<T extends KubeObject>(
  context: WatchContext<T>,
  state: WatchState<T>,
  e: unknown,
): number {
  const { client, errorBackoffs, reconnectMs, path } = context;
  const metrics = context.options.metrics;
  if (isGone(e)) {
    state.mustList = true;
    metrics?.restart('expired');
    return reconnectMs;
  }
  if (!(e instanceof InactivityError || e instanceof MalformedStreamError || isRetryable(e))) throw e;
  const delay = client.retryDelay(errorBackoffs, state.failures++, e);
  if (delay === undefined)
    throw new WatchError(`Watching ${resourceName(context.resource)} failed ${state.failures} times in a row`, e);
  const wait = Math.max(delay, reconnectMs);
  metrics?.restart(restartReason(e));
  if (isTooManyRequests(e)) client.settings.metrics?.apiThrottled('WATCH', wait / 1000);
  client.settings.onRetry?.(
    {
      method: 'WATCH',
      path,
      attempt: state.failures,
      attempts: errorBackoffs.length + 1,
      delay: wait / 1000,
      error: e,
    }
  );
  // A stream given up for its silence is stale already, and stays so until the server is heard
  // from again: a retry is no sign of life. Other failures wait on purpose, outside the allowance.
  if (!(e instanceof InactivityError)) context.options.liveness?.retrying(wait / 1000);
  return wait;
}

function restartReason(e: unknown): WatchRestartReason {
  return e instanceof InactivityError ? 'inactivity' : e instanceof MalformedStreamError ? 'malformed' : 'error';
}

/** Just enough of an object to name it in a synthetic deletion. */
function identityOf<T extends KubeObject>(object: T): T {
  const m = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion },
  } as T;
}

/** The identity of an object across events: its uid, else its namespace and name. */
export function keyOf(object: KubeObject): string {
  const meta = object.metadata;
  return meta?.uid ?? `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}
