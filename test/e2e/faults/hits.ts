/**
 * Counting the requests a fault applied to, and awaiting them: a test waits for the exact request
 * it stalls rather than for time.
 */
import type { RequestInfo } from './matching.ts';
import { within } from './waiting.ts';

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

  /** Resolves with the first request it applied to (at once if that happened already; rejects after 60 s). */
  get first(): Promise<RequestInfo> {
    return this.nth(1);
  }

  /**
   * Resolves with the n-th request it applied to, counting from the first ever; rejects if none
   * comes within `timeout` ms (60 s by default).
   */
  nth(n: number, timeout = 60_000): Promise<RequestInfo> {
    const known = this.#requests[n - 1];
    if (known) return Promise.resolve(known);
    const failure = () => `the fault applied to ${this.count} request(s), not ${n}, within ${timeout} ms`;
    return within<RequestInfo>(timeout, failure, (settle) => {
      const waiter = { count: n, resolve: settle };
      this.#waiters.push(waiter);
      return () => { this.#waiters = this.#waiters.filter((w) => w !== waiter); };
    });
  }

  /** Resolves with the next request it applies to, from now on (rejects after `timeout` ms). */
  next(timeout?: number): Promise<RequestInfo> {
    return this.nth(this.count + 1, timeout);
  }

  record(request: RequestInfo): void {
    this.#requests.push(request);
    const ready = this.#waiters.filter((w) => w.count <= this.#requests.length);
    this.#waiters = this.#waiters.filter((w) => w.count > this.#requests.length);
    for (const waiter of ready) waiter.resolve(this.#requests[waiter.count - 1]!);
  }
}
