/**
 * The background queue that posts an operator's Kubernetes Events. Events are auxiliary: posting
 * never blocks or fails the code that asks for it. The queue is bounded (new events are dropped
 * while it is full), posts a few at a time, drops an event with a warning once posting it failed
 * (retries of retryable API errors are the API client's, per `settings.networking`), and on
 * `close()` drains what is queued within a timeout.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/logger.ts';
import type { ObjectReference } from '../logging/log-records.ts';
import { activeTraceparent, detached } from '../observation/tracing.ts';
import { buildEventBody, isAboutEvent, type EventBody, type EventType, type QueuedEvent } from './events.ts';

/** Sends one Event to the cluster; rejects if it could not. Abort the request when `signal` fires. */
export type PostEvent = (body: EventBody, signal: AbortSignal) => Promise<void>;

export interface EventPosterOptions {
  post: PostEvent;
  /** Read at every event, so changes made by startup handlers apply. */
  settings: OperatorSettings;
  /** For the poster's own warnings; it should carry no object, or its warnings would be posted too. */
  logger: Logger;
  /** The namespace of events about cluster-scoped objects: the credentials' namespace, else `default`. */
  defaultNamespace?: string | (() => string | null | undefined);
  /** The most events waiting at once (10,000 by default). */
  capacity?: number;
  /** The most events being posted at once (4 by default). */
  concurrency?: number;
  clock?: () => number;
}

export interface NewEvent {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

export interface PostingStats {
  posted: number;
  failed: number;
  /** Not posted at all: the queue was full, or the poster was closed. */
  dropped: number;
}

export class EventPoster {
  readonly settings: OperatorSettings;
  readonly stats: PostingStats = { posted: 0, failed: 0, dropped: 0 };
  readonly #post: PostEvent;
  readonly #logger: Logger;
  readonly #defaultNamespace: () => string;
  readonly #capacity: number;
  readonly #concurrency: number;
  readonly #clock: () => number;
  readonly #aborting = new AbortController();
  #queue: QueuedEvent[] = [];
  #head = 0;
  #active = 0;
  #closed = false;
  #overflow = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(options: EventPosterOptions) {
    this.settings = options.settings;
    this.#post = options.post;
    this.#logger = options.logger;
    const ns = options.defaultNamespace;
    this.#defaultNamespace = typeof ns === 'function' ? () => ns() || 'default' : () => ns || 'default';
    this.#capacity = options.capacity ?? 10_000;
    this.#concurrency = options.concurrency ?? 4;
    this.#clock = options.clock ?? Date.now;
    if (!(this.#capacity >= 1) || !(this.#concurrency >= 1))
      throw new RangeError('EventPoster needs a capacity and a concurrency of at least 1.');
  }

  /** How many events wait or are being posted. */
  get pending(): number {
    return this.#queue.length - this.#head + this.#active;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues an event; false if it will not be posted (about an Event, queue full, or closed). */
  enqueue(event: NewEvent): boolean {
    if (isAboutEvent(event.ref)) return false;
    if (this.#closed) {
      this.stats.dropped++;
      return false;
    }
    if (this.#queue.length - this.#head >= this.#capacity) {
      if (this.#overflow++ === 0) {
        this.#logger.warning(
          `Too many events are waiting to be posted (${this.#capacity}); new ones are dropped until the queue drains.`
        );
      }
      this.stats.dropped++;
      return false;
    }
    // The span that the event is about (the handler's call) is active now, not when it is posted.
    const traceparent = activeTraceparent();
    this.#queue.push({ ...event, time: this.#clock(), ...(traceparent && { traceparent }) });
    detached(() => this.#pump());
    return true;
  }

  /** Resolves once nothing waits and nothing is being posted. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops taking events and waits up to `timeout` seconds for the queued ones to be posted;
   * then aborts the requests in flight and drops the rest, with a warning.
   */
  async close(timeout = 5): Promise<void> {
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => { timer = setTimeout(resolve, timeout * 1000, true); });
    const drained = await Promise.race([this.idle().then(() => false), expired]);
    clearTimeout(timer);
    if (!drained) return;
    const left = this.pending;
    this.stats.dropped += this.#queue.length - this.#head;
    this.#queue = [];
    this.#head = 0;
    // Requests in flight are aborted, not awaited: a request that ignores its signal must not hold up the exit.
    this.#aborting.abort();
    this.#logger.warning(`${left} events were not posted within ${timeout} seconds of stopping; they are dropped.`);
  }

  #pump(): void {
    while (this.#active < this.#concurrency && this.#head < this.#queue.length) {
      const event = this.#queue[this.#head++];
      this.#compact();
      this.#active++;
      void this.#send(event).finally(() => {
        this.#active--;
        this.#pump();
        this.#settle();
      });
    }
  }

  /** Keeps the array from growing without bound while its head advances. */
  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  async #send(event: QueuedEvent): Promise<void> {
    try {
      const body = buildEventBody(event, this.settings.posting, this.#defaultNamespace());
      await this.#post(body, this.#aborting.signal);
      this.stats.posted++;
    } catch (error) {
      if (this.#aborting.signal.aborted) {
        this.stats.dropped++;
        return;
      }
      this.stats.failed++;
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
      this.#logger.warning(`Failed to post an event. Ignoring and continuing. ${reason}. `
        + `Event: type=${JSON.stringify(event.type)}, reason=${JSON.stringify(event.reason)}, ` +
          `message=${JSON.stringify(event.message)}.`);
    }
  }

  #settle(): void {
    if (this.#queue.length - this.#head === 0 && this.#overflow > 0) {
      this.#logger.warning(`Dropped ${this.#overflow} events while the queue was full.`);
      this.#overflow = 0;
    }
    if (this.pending > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
