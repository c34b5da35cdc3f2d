/**
 * A listing streamed as a WATCH's initial events (`sendInitialEvents`): how their end is told (a
 * bookmark with an annotation), and how a server's refusal of them is told, in whichever way it
 * refuses (an answer, an error in the stream, an early end, silence).
 */
import { ApiError, isGone, isTooManyRequests } from '../api-errors.ts';
import type { KubeObject } from '../../structs/resources.ts';
import { toEvent, type WatchEvent } from './events.ts';

/** The annotation of the bookmark that ends a stream's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
/** Silence within a stream's initial events, in ms, before they count as refused (at most the inactivity timeout). */
export const INITIAL_SILENCE_MS = 10_000;

/**
 * A clock on the server's silence within a stream's initial events, stopped while the consumer
 * holds an event (that silence is ours): a server sends them without pause, then their bookmark.
 * One timer for the whole phase, not one per event: it looks at the time of the last event when it
 * fires, and waits again for the rest.
 */
export class InitialSilence {
  readonly ms: number;
  readonly #expiry = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #since = performance.now();
  #holding = false;

  constructor(ms: number) {
    this.ms = ms;
    this.#wait(ms);
  }

  get signal(): AbortSignal { return this.#expiry.signal; }
  get expired(): boolean { return this.#expiry.signal.aborted; }

  /** An event arrived: the consumer holds it until `arm`. */
  disarm(): void {
    this.#holding = true;
  }

  /** The next event is awaited from the server. */
  arm(): void {
    this.#holding = false;
    this.#since = performance.now();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #wait(ms: number): void {
    this.#timer = setTimeout(() => this.#check(), ms);
    this.#timer.unref();
  }

  #check(): void {
    const quiet = this.#holding ? 0 : performance.now() - this.#since;
    if (quiet >= this.ms) this.#expiry.abort();
    else this.#wait(this.ms - quiet);
  }
}

/**
 * The events of a stream's initial phase: objects are listed; an error is the server refusing the
 * initial events (only a 410 or a 429 is what it would be in any stream).
 */
export function initialEvent<T extends KubeObject>(raw: unknown, path: string): WatchEvent<T> | undefined {
  try {
    return toEvent<T>(raw, path);
  } catch (e) {
    if (e instanceof ApiError && !isGone(e) && !isTooManyRequests(e)) throw new StreamingRefused(e);
    throw e;
  }
}

/** Whether a bookmark is the one that ends a stream's initial events. */
export function endsInitialEvents(raw: unknown): boolean {
  const annotations = (raw as { object?: KubeObject }).object?.metadata?.annotations;
  return annotations?.[INITIAL_EVENTS_END] === 'true';
}

/** A server's refusal of a streamed listing: the watch lists in pages from now on, at once. */
export class StreamingRefused extends Error {
  constructor(cause: unknown) {
    super('The server refused to stream a listing as initial events', { cause });
  }
}

/** Whether the answer to a WATCH that asked for initial events refuses them: a parameter the server does not accept. */
export function refusesInitialEvents(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 400 || e.status === 422);
}
