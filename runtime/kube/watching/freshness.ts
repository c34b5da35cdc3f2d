/**
 * Whether watch streams are alive: each tells when it last heard from the server (an event, a
 * bookmark, a page of a listing, a stream opened). A stream is stale when it has been silent past
 * its inactivity timeout and has not been re-established since — the server, or something on the
 * way to it, stopped talking, and the stream's own recovery did not help. A stream that is waiting
 * to retry on purpose (a backoff after an error) has that wait added to its allowance.
 */
export interface StreamLiveness {
  /** The server was heard from. */
  alive(): void;
  /** The stream waits this many seconds before it tries again. */
  retrying(seconds: number): void;
  /** The stream has ended: it is not watched any more. */
  ended(): void;
}

/** A stream as its owner sees it: what it tells, and whether it is fresh. */
export interface TrackedStream extends StreamLiveness {
  /** Whether the stream has heard from the server within its allowance (the opposite of stale). */
  fresh(): boolean;
}

export class WatchFreshness {
  readonly #streams = new Set<{ name: string; deadline: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Starts watching a stream's liveness; `inactivityTimeout` in seconds. */
  track(name: string, inactivityTimeout: number): TrackedStream {
    const allowance = inactivityTimeout * 1000;
    // Mutated in place: `alive()` runs for every event of every stream.
    const stream = { name, deadline: this.#now() + allowance };
    this.#streams.add(stream);
    return {
      alive: () => { stream.deadline = this.#now() + allowance; },
      retrying: (seconds) => { stream.deadline = this.#now() + allowance + seconds * 1000; },
      ended: () => { this.#streams.delete(stream); },
      fresh: () => stream.deadline >= this.#now(),
    };
  }

  /** The streams silent past their allowance, with the seconds since it ran out. */
  stale(): { name: string; overdue: number }[] {
    const now = this.#now();
    return [...this.#streams]
      .filter((s) => s.deadline < now)
      .map((s) => ({ name: s.name, overdue: (now - s.deadline) / 1000 }));
  }
}
