/**
 * The handful of requests the harness itself makes (readiness, CRDs, discovery), over the admin's
 * client certificate. Kept apart from the operator's API layer on purpose: the harness must work
 * even while that layer is broken, since its tests run on this harness.
 */
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ApiCredentials {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** PEM: the CA of the serving certificate; the admin's certificate and key. */
  ca: string;
  cert: string;
  key: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export function sendRequest(
  credentials: ApiCredentials,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const url = new URL(path, credentials.server);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, {
      method,
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
      agent: false,
      timeout: options.timeoutMs ?? 10_000,
      signal: options.signal,
      headers: {
        accept: 'application/json',
        ...(
          payload === undefined ? {} : {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          }
        ),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on(
        'end',
        () => resolve(
          { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }
        ),
      );
      res.on('error', reject);
    });
    req.on(
      'timeout',
      () => req.destroy(new Error(`${method} ${url.pathname}: no response within ${options.timeoutMs ?? 10_000} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(method: string, path: string, response: ApiResponse) {
    super(`${method} ${path} → HTTP ${response.status}: ${response.text.slice(0, 500)}`);
    this.status = response.status;
  }
}

/**
 * A request that honours `429 Too Many Requests` (the apiserver says so while its storage is
 * initialising) by waiting as told, up to `deadline`; other statuses are returned as they are.
 */
export async function requestWithRetry(
  credentials: ApiCredentials, method: string, path: string, deadline: number, options: RequestOptions = {},
): Promise<ApiResponse> {
  for (;;) {
    const response = await sendRequest(credentials, method, path, options);
    if (response.status !== 429 || Date.now() >= deadline) return response;
    const retryAfter = Number(response.headers['retry-after']);
    await sleep(
      Math.min(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 200, 1000),
      undefined,
      { signal: options.signal },
    );
  }
}

/** Parses a JSON response, throwing an ApiError for any status outside 2xx. */
export function expectJson<T>(method: string, path: string, response: ApiResponse): T {
  if (response.status < 200 || response.status >= 300) throw new ApiError(method, path, response);
  return JSON.parse(response.text) as T;
}
