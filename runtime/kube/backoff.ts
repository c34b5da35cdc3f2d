/**
 * Delays between retries: a schedule of seconds (Kopf's `networking.error_backoffs`), each jittered
 * so that many clients failing together do not retry in lockstep, and never shorter than what the
 * server asked for with `Retry-After`.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';

/** Spread of the jitter around each scheduled delay: ±20%. */
const JITTER = 0.2;

export interface RetryDelayOptions {
  /** Seconds the server asked to wait (`Retry-After`). */
  retryAfter?: number;
  /** Wait exactly what the server asked, even if shorter than the schedule (Kopf: `networking.enforce_retry_after`). */
  enforceRetryAfter?: boolean;
  random?: () => number;
}

/**
 * The delay in milliseconds before retry number `attempt` (0-based), or `undefined` when the
 * schedule is spent. The server's `retryAfter` is a floor, or the delay itself if enforced.
 */
export function retryDelay(
  schedule: readonly number[],
  attempt: number,
  options: RetryDelayOptions = {},
): number | undefined {
  if (attempt >= schedule.length) return undefined;
  if (options.retryAfter !== undefined && options.enforceRetryAfter) return options.retryAfter * 1000;
  const base = schedule[attempt] * 1000;
  const jittered = base * (1 - JITTER + 2 * JITTER * (options.random ?? Math.random)());
  return Math.round(Math.max(jittered, (options.retryAfter ?? 0) * 1000));
}

/** `Retry-After` as seconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** Sleeps `ms`; resolves `true` if the full time passed, `false` as soon as the signal aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await sleepFor(ms, undefined, { signal });
    return true;
  } catch (e) {
    if (signal?.aborted) return false;
    throw e;
  }
}

/**
 * The delay before try number `attempt` (0-based) of a schedule whose last delay repeats for
 * ever (the waits for what may come at any time: a CRD, a served resource); 0 for no schedule.
 */
export function repeatingDelay(schedule: readonly number[], attempt: number): number {
  return schedule[Math.min(attempt, schedule.length - 1)] ?? 0;
}
