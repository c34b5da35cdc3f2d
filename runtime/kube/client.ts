/**
 * The client: one per operator (several may live in one process; nothing here is global).
 * It sends requests with the credentials of its source, retries what is worth retrying
 * (network errors, 5xx, 429 — honouring `Retry-After`), refreshes credentials on a 401 (once, or
 * until a vault of login handlers' credentials runs out), counts requests by verb, and owns the
 * discovery cache.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isolatedDefaultCredentials } from './credentials/isolated.ts';
import { retryDelay, sleep } from './backoff.ts';
import type { CredentialSource, Credentials } from './credentials/credentials.ts';
import { kubeConfigCredentials } from './credentials/kubeconfig.ts';
import { Discovery } from './discovery/discovery.ts';
import {
  ApiConnectionError, ApiError, certificateProblem, isRetryable, isTooManyRequests, isUnauthorized,
} from './api-errors.ts';
import { errorOf, isSuccess, jsonBody, readAll } from './responses.ts';
import { Transport } from './transport.ts';
import type { StreamedResponse } from './transport.ts';
import type { RequestOptions, Verb } from './types.ts';
import type { ApiMetrics } from '../observation/metrics.ts';
import { pathResource } from '../observation/resource-names.ts';
import { answered, describeRequest, startRequestSpan, within } from '../observation/tracing.ts';

export interface KubeClientOptions {
  /** Seconds for one attempt of a request, response body included (Kopf: `networking.request_timeout`). */
  requestTimeout?: number;
  /** Seconds to open a connection; bounded only by `requestTimeout` if absent (Kopf: `networking.connect_timeout`). */
  connectTimeout?: number;
  /**
   * Seconds to sleep before each retry of a failed request; its length is the retry budget (Kopf:
   * `networking.error_backoffs`).
   */
  errorBackoffs?: readonly number[];
  /** Seconds between a watch stream's end and the next one (Kopf: `watching.reconnect_backoff`). */
  watchReconnectBackoff?: number;
  /** Seconds of silence after which a watch stream is re-established (Kopf: `watching.inactivity_timeout`). */
  watchInactivityTimeout?: number;
  /** Objects per page when listing (`limit`). */
  listPageSize?: number;
  /**
   * Watches read the objects there are as the stream's initial events (`sendInitialEvents`, one
   * request) rather than by a paginated LIST first; a server that refuses it gets the LIST. False
   * by default: against an API server that serves paginated lists from its cache, the pages cost
   * both sides less CPU (bench/scale/listing.ts).
   */
  streamingLists?: boolean;
  userAgent?: string;
  /**
   * Connections for regular requests (32 by default). A burst of thousands of objects would
   * otherwise open a TLS connection per concurrent request — memory and handshakes wasted;
   * requests beyond the limit wait for a free keep-alive connection. Watch streams have
   * connections of their own, without a limit: each holds one for as long as it runs.
   */
  maxSockets?: number;
  /**
   * Seconds of read coalescing: after a turn of the event loop that read responses, the thread
   * sleeps for the rest of this time, so that the responses arriving meanwhile are handled together
   * (see `http/coalescing.ts`). Less CPU per response on a busy operator, at the price of blocking the
   * thread for up to this long; 0 (the default) for none.
   */
  readCoalescing?: number;
  /**
   * On 429, wait exactly the server's `Retry-After`, even if shorter than the schedule (Kopf:
   * `networking.enforce_retry_after`).
   */
  enforceRetryAfter?: boolean;
  /** Source of randomness for the jitter of retries; replaceable for tests. */
  random?: () => number;
  /** Called after every HTTP attempt of a regular request (for `--debug` logs). */
  trace?: (attempt: RequestTrace) => void;
  /**
   * Called when a failed attempt of a request, or a failed watch stream, is going to be retried: quiet retries look
   * like a hang.
   */
  onRetry?: (retry: RetryNotice) => void;
  /** Told of every HTTP attempt and of every wait a 429 asked for (the operator's metrics). */
  metrics?: ApiMetrics;
}

export interface RetryNotice {
  method: string;
  path: string;
  /** The attempt that failed (1 for the first) and how many there can be in all. */
  attempt: number;
  attempts: number;
  /** Seconds until the next attempt. */
  delay: number;
  error: unknown;
}

export interface RequestTrace {
  method: string;
  path: string;
  /** The HTTP status; 0 if no response arrived. */
  status: number;
  /** Milliseconds until the response (its whole body for a regular request). */
  ms: number;
}

/** The options a client may go without. */
type OptionalSettings = 'connectTimeout' | 'maxSockets' | 'trace' | 'onRetry' | 'metrics';

export type ClientSettings =
  & Required<Omit<KubeClientOptions, OptionalSettings>>
  & Pick<KubeClientOptions, OptionalSettings>;

export const DEFAULT_CLIENT_SETTINGS: ClientSettings = {
  requestTimeout: 300,
  errorBackoffs: [1, 1, 2, 3, 5, 8, 13, 21],
  watchReconnectBackoff: 0.1,
  watchInactivityTimeout: 70,
  listPageSize: 500,
  streamingLists: false,
  userAgent: 'kopf-ts',
  enforceRetryAfter: false,
  readCoalescing: 0,
  random: Math.random,
};

const DEFAULT_MAX_SOCKETS = 32;

const VERB_OF_METHOD: Record<string, Verb> = {
  GET: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export class KubeClient {
  readonly settings: ClientSettings;
  readonly discovery: Discovery;
  readonly #credentials: CredentialSource;
  readonly #transport: Transport;
  readonly #streams: Transport;
  readonly #counts = new Map<Verb, number>();
  #closed = false;

  constructor(credentials: CredentialSource, options: KubeClientOptions = {}) {
    this.settings = { ...DEFAULT_CLIENT_SETTINGS, ...withoutUndefined(options) };
    this.#credentials = credentials;
    const readCoalescing = this.settings.readCoalescing * 1000;
    this.#transport = new Transport({ maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS, readCoalescing });
    this.#streams = new Transport({ readCoalescing });
    this.discovery = new Discovery(this);
  }

  static fromKubeConfig(kc: KubeConfig, options?: KubeClientOptions): KubeClient {
    return new KubeClient(kubeConfigCredentials(kc), options);
  }

  /**
   * `KUBECONFIG`, else `~/.kube/config`, else the in-cluster service account (client-node's rules),
   * resolved in a short-lived worker so that this process never loads client-node's API models.
   * A broken kubeconfig surfaces at the first request.
   */
  static fromDefault(options?: KubeClientOptions): KubeClient {
    return new KubeClient(isolatedDefaultCredentials(), options);
  }

  /** The namespace the credentials name (the kubeconfig context's, or the service account's), if any. */
  async credentialsNamespace(): Promise<string | undefined> {
    return (await this.#credentials.get()).namespace;
  }

  /** The API server's URL, as the credentials give it: for telling a user which cluster this is. */
  async serverUrl(): Promise<string> {
    return (await this.#credentials.get()).server;
  }

  /** Sends a request with retries and returns the parsed JSON body (`undefined` if empty). */
  async request<R = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<R> {
    return jsonBody(await this.requestBytes(method, path, options)) as R;
  }

  /** Sends a request with retries and returns the body as it came, for callers that read only part of it. */
  async requestBytes(method: string, path: string, options: RequestOptions = {}): Promise<Buffer> {
    const verb = options.verb ?? VERB_OF_METHOD[method] ?? 'get';
    const body = encodeBody(options.body);
    const schedule = retrySchedule(this.settings.errorBackoffs, options.retries);
    let refreshed = false;
    for (let retry = 0; ;) {
      this.#throwIfClosed(method, path); // also when closed while waiting for a retry
      try {
        const credentials = await this.#credentials.get();
        try {
          return await this.#attempt(credentials, method, path, body, options, verb);
        } catch (e) {
          if (isUnauthorized(e) && (!refreshed || this.#credentials.triesAll)) {
            refreshed = true;
            this.#credentials.invalidate(credentials);
            continue;
          }
          throw e;
        }
      } catch (e) {
        if (options.signal?.aborted) throw options.signal.reason;
        // Closed meanwhile: that is why the attempt broke, and no retry may follow.
        this.#throwIfClosed(method, path);
        if (!isRetryable(e)) {
          const problem = certificateProblem(e);
          throw problem ? new ApiConnectionError(method, path, e, problem) : e;
        }
        const delay = this.retryDelay(schedule, retry++, e);
        if (delay === undefined) throw e instanceof ApiError ? e : new ApiConnectionError(method, path, e);
        this.settings.onRetry?.(
          { method, path, attempt: retry, attempts: schedule.length + 1, delay: delay / 1000, error: e }
        );
        if (isTooManyRequests(e)) this.settings.metrics?.apiThrottled(method, delay / 1000);
        if (!(await sleep(delay, options.signal))) throw options.signal?.reason;
      }
    }
  }

  /**
   * Opens a streaming GET (a watch) in one attempt, without retries: the caller decides how to
   * recover. Resolves with the response once its headers say 2xx; throws `ApiError` otherwise.
   */
  async openStream(
    path: string,
    options: Pick<RequestOptions, 'query' | 'signal' | 'verb' | 'accept'> = {},
  ): Promise<StreamedResponse> {
    this.#throwIfClosed('GET', path);
    for (let refreshed = false; ; refreshed = true) {
      const credentials = await this.#credentials.get();
      this.#count(options.verb ?? 'watch');
      const timeout = (this.settings.connectTimeout ?? this.settings.requestTimeout) * 1000;
      const started = performance.now();
      const metrics = this.settings.metrics;
      const opening = this.#streams.open(credentials, {
        method: 'GET',
        path: withQuery(path, options.query),
        headers: { ...this.#headers(credentials), ...(options.accept && { Accept: options.accept }) },
        signal: options.signal,
        connectTimeout: this.settings.connectTimeout === undefined ? undefined : this.settings.connectTimeout * 1000,
        headersTimeout: timeout,
      });
      const response = metrics ? await measured(opening, metrics, 'WATCH', path, started) : await opening;
      if (isSuccess(response.status)) return response;
      const error = errorOf(await readAll(response), 'GET', path, options.verb ?? 'watch');
      if (error.status === 401 && (!refreshed || this.#credentials.triesAll)) {
        this.#credentials.invalidate(credentials);
        continue;
      }
      throw error;
    }
  }

  /** Milliseconds to wait before retry number `attempt` after `error`; `undefined` once `schedule` is spent. */
  retryDelay(schedule: readonly number[], attempt: number, error: unknown): number | undefined {
    const retryAfter = error instanceof ApiError ? error.retryAfter : undefined;
    return retryDelay(
      schedule,
      attempt,
      { retryAfter, enforceRetryAfter: this.settings.enforceRetryAfter, random: this.settings.random },
    );
  }

  /** HTTP attempts so far, by verb (retries count as attempts). */
  requestCounts(): Partial<Record<Verb, number>> {
    return Object.fromEntries(this.#counts);
  }

  /** Closes all connections, open watches included. */
  close(): void {
    this.#closed = true;
    this.#transport.close();
    this.#streams.close();
  }

  async #attempt(
    credentials: Credentials,
    method: string,
    path: string,
    body: Buffer | string | undefined,
    options: RequestOptions,
    verb: Verb,
  ): Promise<Buffer> {
    this.#count(verb);
    const headers = this.#headers(credentials);
    if (options.accept) headers.Accept = options.accept;
    if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
    const started = performance.now();
    const span = startRequestSpan();
    describeRequest(span, method, path);
    // A chain, not an async closure: without a tracing SDK, `within` calls it as it is, with no frame of its own.
    const sending = () => this.#transport.request(credentials, {
      method,
      path: withQuery(path, options.query),
      headers,
      body,
      signal: options.signal,
      connectTimeout: this.settings.connectTimeout === undefined ? undefined : this.settings.connectTimeout * 1000,
      timeout: (options.timeout ?? this.settings.requestTimeout) * 1000,
    }).then((response) => {
      this.#report(method, path, response.status, started);
      answered(span, response.status);
      return response;
    }, (error: unknown) => {
      this.#report(method, path, 0, started);
      throw error;
    });
    const response = await within(span, sending);
    if (!isSuccess(response.status)) throw errorOf(response, method, path, verb);
    return response.body;
  }

  /**
   * A closed client sends nothing more: work left running by a stopped operator (a handler past
   * its exit timeout) must not write to objects that another operator may be handling by then.
   */
  #throwIfClosed(method: string, path: string): void {
    if (this.#closed) throw new ApiConnectionError(method, path, new Error('the API client is closed'));
  }

  /** An attempt's end, to the debug log and the metrics (either may be absent). */
  #report(method: string, path: string, status: number, started: number): void {
    const { trace, metrics } = this.settings;
    if (!trace && !metrics) return;
    const ms = performance.now() - started;
    trace?.({ method, path, status, ms });
    metrics?.apiRequest(method, pathResource(path), status, ms / 1000);
  }

  #count(verb: Verb): void {
    this.#counts.set(verb, (this.#counts.get(verb) ?? 0) + 1);
  }

  #headers(credentials: Credentials): Record<string, string> {
    return { Accept: 'application/json', 'User-Agent': this.settings.userAgent, ...credentials.headers };
  }
}

/** A stream's opening, reported when its head has come or it failed: the stream's time is not the request's. */
async function measured(
  opening: Promise<StreamedResponse>, metrics: ApiMetrics, verb: string, path: string, started: number,
): Promise<StreamedResponse> {
  let status = 0;
  try {
    return await opening.then((response) => { status = response.status; return response; });
  } finally {
    metrics.apiRequest(verb, pathResource(path), status, (performance.now() - started) / 1000);
  }
}

/** The path with the query's defined parameters. */
function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  // Most requests carry only unset options (a patch's dryRun, fieldManager, force): no params then.
  let params: URLSearchParams | undefined;
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) (params ??= new URLSearchParams()).set(key, String(value));
  }
  const text = params?.toString();
  return text ? `${path}?${text}` : path;
}

/** The body as sent: a buffer as it is, a string as UTF-8, anything else as JSON. */
function encodeBody(body: unknown): Buffer | string | undefined {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}

/** The client's schedule, cut to `retries` entries (repeating its last delay if more are asked for). */
function retrySchedule(schedule: readonly number[], retries: number | undefined): readonly number[] {
  if (retries === undefined) return schedule;
  const last = schedule.at(-1) ?? 1;
  return Array.from({ length: retries }, (_, i) => schedule[i] ?? last);
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
