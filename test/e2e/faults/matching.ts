/**
 * Which requests a fault applies to, and how many of them: a request is described once
 * (`RequestInfo`) and tested against `Match`es; a `Counter` lets the first `skip` matching
 * requests pass and applies to the next `times` ones (`nth: n` is `skip: n - 1, times: 1`).
 */

/** A request as the proxy sees it, before it is forwarded. */
export interface RequestInfo {
  /** The order of arrival at the proxy, from 1, over all requests. */
  seq: number;
  method: string;
  /** The path without the query, e.g. `/apis/kopf.dev/v1/namespaces/default/kopfexamples/a`. */
  path: string;
  query: URLSearchParams;
  /** A watch request (`?watch=true` or `?watch=1`). */
  watch: boolean;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** All given conditions must hold; an empty match matches every request. */
export interface Match {
  /** One method or several, upper case. */
  method?: string | readonly string[];
  /** An exact path, or a pattern tested against the path (without the query). */
  path?: string | RegExp;
  /** Watch requests only (`true`) or all but watches (`false`). */
  watch?: boolean;
  /** Anything else: e.g. a label selector in the query. */
  where?: (request: RequestInfo) => boolean;
}

export interface Counting {
  /** Let this many matching requests pass first (0 by default). */
  skip?: number;
  /** Apply to this many matching requests, then let the rest pass (all by default). */
  times?: number;
  /** Apply to the n-th matching request only (from 1): the same as `skip: n - 1, times: 1`. */
  nth?: number;
}

export function matches(match: Match, request: RequestInfo): boolean {
  if (match.method !== undefined) {
    const methods = typeof match.method === 'string' ? [match.method] : match.method;
    if (!methods.includes(request.method)) return false;
  }
  if (match.path !== undefined) {
    if (typeof match.path === 'string' ? match.path !== request.path : !match.path.test(request.path)) return false;
  }
  if (match.watch !== undefined && match.watch !== request.watch) return false;
  return match.where ? match.where(request) : true;
}

/** Counts matching requests and says which of them a fault applies to. */
export class Counter {
  #skip: number;
  #times: number;
  #seen = 0;

  constructor(counting: Counting) {
    if (counting.nth !== undefined && (counting.skip !== undefined || counting.times !== undefined)) {
      throw new Error('nth excludes skip and times');
    }
    this.#skip = counting.nth !== undefined ? counting.nth - 1 : counting.skip ?? 0;
    this.#times = counting.nth !== undefined ? 1 : counting.times ?? Infinity;
  }

  /** Called once per matching request: whether the fault applies to this one. */
  applies(): boolean {
    this.#seen++;
    return this.#seen > this.#skip && this.#seen <= this.#skip + this.#times;
  }

  /** All the requests it should apply to have come. */
  get spent(): boolean {
    return this.#seen >= this.#skip + this.#times;
  }
}

export function describeRequest(request: RequestInfo): string {
  const query = request.query.size ? `?${request.query.toString()}` : '';
  return `#${request.seq} ${request.method} ${request.path}${query}`;
}

export function describeMatch(match: Match): string {
  const parts = [
    match.method === undefined ? '' : [match.method].flat().join('|'),
    match.path === undefined ? '' : String(match.path),
    match.watch === undefined ? '' : match.watch ? '(watch)' : '(no watch)',
    match.where ? '(and a condition)' : '',
  ];
  return parts.filter(Boolean).join(' ') || 'any request';
}
