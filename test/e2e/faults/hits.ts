/**
 * Counting the requests a fault applied to, and awaiting them: a test waits for the exact request
 * it stalls rather than for time.
 */
import type { RequestInfo } from './matching.ts';

export class Hits {
  #requests: RequestInfo[] = [];
  #waiters: { count: number; resolve: (request: RequestInfo) => void }[] = [];

  /** How many requests it applied to so far. */
  get count(): number {
    return this.#requests.length;
  }

  get requests(): readonly RequestInfo[] {
    return this.#requests;
  }

  /** Resolves with the first request it applied to (at once if that happened already). */
  get first(): Promise<RequestInfo> {
    return this.nth(1);
  }

  /** Resolves with the n-th request it applied to, counting from the first ever. */
  nth(n: number): Promise<RequestInfo> {
    const known = this.#requests[n - 1];
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => this.#waiters.push({ count: n, resolve }));
  }

  /** Resolves with the next request it applies to, from now on. */
  next(): Promise<RequestInfo> {
    return this.nth(this.count + 1);
  }

  record(request: RequestInfo): void {
    this.#requests.push(request);
    const ready = this.#waiters.filter((w) => w.count <= this.#requests.length);
    this.#waiters = this.#waiters.filter((w) => w.count > this.#requests.length);
    for (const waiter of ready) waiter.resolve(this.#requests[waiter.count - 1]!);
  }
}
