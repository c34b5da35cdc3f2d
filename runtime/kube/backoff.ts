/**
 * Delays between retries: a schedule of seconds (Kopf's `networking.error_backoffs`), each jittered
 * so that many clients failing together do not retry in lockstep, and never shorter than what the
 * server asked for with `Retry-After`.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';

/** Spread of the jitter around each scheduled delay: ±20%. */
const JITTER = 0.2;

/**
 * The delay in milliseconds before retry number `attempt` (0-based), or `undefined` when the
 * schedule is spent. `retryAfter` (seconds, from the server) is a floor.
 */
export function retryDelay(schedule: readonly number[], attempt: number, retryAfter?: number, random: () => number = Math.random): number | undefined {
  if (attempt >= schedule.length) return undefined;
  const base = schedule[attempt] * 1000;
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  return Math.max(jittered, (retryAfter ?? 0) * 1000);
}

/** `Retry-After` as seconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** Sleeps, or rejects with the signal's reason as soon as it aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw signal.reason;
  try {
    await sleepFor(ms, undefined, { signal });
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    throw e;
  }
}
