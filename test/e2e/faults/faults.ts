/**
 * What a test asks of the fault proxy (proxy.ts): the faults (stall, cut, answer, silence), an
 * injection of one into the requests a match selects, with its hits and the requests it holds, and
 * a part of discovery hidden. The proxy applies them; the test awaits and ends them.
 */
import type { Hidden } from './discovery.ts';
import { Hits } from './hits.ts';
import { Counter, matches, type Counting, type Match, type RequestInfo } from './matching.ts';
import type { FaultProxy } from './proxy.ts';

/** What happens to a request a fault applies to. */
export type Fault =
  | { kind: 'stall' }
  | { kind: 'cut' }
  | { kind: 'status'; status: number; retryAfter?: number }
  | { kind: 'silence' };

/** Hold the request unanswered and unforwarded, its connection open, until released or cut. */
export const STALL: Fault = { kind: 'stall' };
/** Close the client's connection without an answer; nothing is forwarded. */
export const CUT: Fault = { kind: 'cut' };
/** Forward it, pass the response's head, then drop everything after: a stream that goes silent. */
export const SILENCE: Fault = { kind: 'silence' };

/** Answer with this status and a Kubernetes Status body, without forwarding. */
export function answer(status: number, options: { retryAfter?: number } = {}): Fault {
  return { kind: 'status', status, ...options };
}

export interface InjectOptions extends Counting {
  /**
   * For SILENCE and CUT: apply to the matching responses streaming now (watches) as well; with
   * `times: 0`, to those only.
   */
  open?: boolean;
}

/** One entry per request: what the proxy did with it. */
export interface Passage {
  request: RequestInfo;
  /** `passed`: forwarded and answered by the apiserver (`status` is its answer). */
  outcome: 'passed' | 'stalled' | 'released' | 'cut' | 'answered' | 'silenced' | 'hidden' | 'failed';
  status?: number;
}

/** A fault in place: its hits, and the requests it holds. */
export class Injection {
  readonly match: Match;
  readonly fault: Fault;
  readonly hits = new Hits();
  #counter: Counter;
  #removed = false;
  #proxy: FaultProxy;

  constructor(proxy: FaultProxy, match: Match, fault: Fault, counting: Counting) {
    this.#proxy = proxy;
    this.match = match;
    this.fault = fault;
    this.#counter = new Counter(counting);
  }

  /** Whether it applies to this request (counts it if it matches). */
  claims(request: RequestInfo): boolean {
    if (this.#removed || !matches(this.match, request)) return false;
    if (!this.#counter.applies()) return false;
    this.hits.record(request);
    return true;
  }

  /** Applies no more to new requests; what it holds stays held until `release()` or `cut()`. */
  remove(): void {
    this.#removed = true;
  }

  /** Removes it; stalled requests are forwarded now, silenced responses flow again. */
  release(): void {
    this.remove();
    this.#proxy.releaseHeldBy(this);
  }

  /** Removes it; the connections of stalled or silenced requests are closed. */
  cut(): void {
    this.remove();
    this.#proxy.cutHeldBy(this);
  }
}

/** A part of discovery hidden until `remove()`; its hits are the discovery answers it changed. */
export class Hiding {
  readonly hidden: Hidden;
  readonly hits = new Hits();
  #proxy: FaultProxy;

  constructor(proxy: FaultProxy, hidden: Hidden) {
    this.#proxy = proxy;
    this.hidden = hidden;
  }

  remove(): void {
    this.#proxy.unhide(this);
  }
}
