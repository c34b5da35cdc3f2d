/**
 * Stopping a timer or daemon, in Kopf's steps: set its `stopped` flag and give it a few turns of
 * the loop to exit at once; then, for daemons, wait `cancellationBackoff`; then cancel it (abort
 * its `signal`) and wait `cancellationTimeout`; then abandon it with a warning. A daemon that has
 * no `cancellationTimeout` is never cancelled:
 *   - on the object's deletion, it is waited for as long as it takes, checked every
 *     `cancellationPolling` seconds, and the object keeps its finalizer meanwhile;
 *   - on the operator's exit or pause, it gets `queueing.exitTimeout` seconds (as handlers do at
 *     the exit), is then cancelled, and abandoned if that does not end it either.
 * Timers have neither option: they are stopped the same way as such daemons.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { StopReason } from '../registry/contexts.ts';
import { exitInstantly, within } from '../queueing/sleeping.ts';
import type { Spawned } from './object-daemons.ts';

/** Stops a task of a deleted object (or one that no longer matches): polls when there is no timeout. */
export async function stopForDeletion(spawned: Spawned, reason: StopReason, settings: OperatorSettings): Promise<void> {
  const { backoff, timeout, polling } = limitsOf(spawned, settings);
  spawned.stopper.stop(reason);
  await instantExit(spawned, settings);
  if (await signalled(spawned, backoff, settings)) return;
  if (timeout !== undefined) {
    await cancelled(spawned, timeout, settings);
    return;
  }
  while (!spawned.done && !spawned.abandoned) {
    spawned.logger.debug(`${spawned.title} is still exiting. The next check is in ${polling} seconds.`);
    await within(spawned.exited, polling);
  }
}

/** Stops a task in memory (the operator exits or pauses): never waits longer than its limits. */
export async function stopInMemory(spawned: Spawned, reason: StopReason, settings: OperatorSettings): Promise<void> {
  const { backoff, timeout } = limitsOf(spawned, settings);
  spawned.stopper.stop(reason);
  await instantExit(spawned, settings);
  if (spawned.done) {
    spawned.logger.debug(`${spawned.title} has exited gracefully.`);
    return;
  }
  if (await signalled(spawned, backoff, settings)) return;
  await cancelled(spawned, timeout ?? settings.queueing.exitTimeout, settings);
}

/** The graceful step: `stopped` is set; waits the backoff, if any. Returns whether it has exited. */
async function signalled(spawned: Spawned, backoff: number | undefined, settings: OperatorSettings): Promise<boolean> {
  if (spawned.done) return true;
  if (backoff === undefined) return false;
  spawned.logger.debug(`${spawned.title} is signalled to exit gracefully.`);
  await within(spawned.exited, backoff);
  await instantExit(spawned, settings);
  return spawned.done;
}

/** The forced step: the handler's `signal` is aborted; then it is given `timeout` seconds, or abandoned. */
async function cancelled(spawned: Spawned, timeout: number, settings: OperatorSettings): Promise<void> {
  if (spawned.done) return;
  spawned.logger.debug(`${spawned.title} is signalled to exit by force.`);
  spawned.canceller.abort(new DOMException(`${spawned.title} is cancelled.`, 'AbortError'));
  await within(spawned.exited, timeout);
  await instantExit(spawned, settings);
  if (spawned.done || spawned.abandoned) return;
  spawned.abandoned = true;
  spawned.logger.warning(`${spawned.title} did not exit in time. Leaving it orphaned.`);
}

function limitsOf(spawned: Spawned, settings: OperatorSettings) {
  const handler = spawned.handler;
  const polling = settings.background.cancellationPolling;
  if (handler.kind === 'timer') return { backoff: undefined, timeout: undefined, polling };
  return {
    backoff: handler.cancellationBackoff,
    timeout: handler.cancellationTimeout,
    polling: handler.cancellationPolling ?? polling,
  };
}

/** Kopf's "instant exit": a bounded time, or a few turns of the loop that take no time. */
function instantExit(spawned: Spawned, settings: OperatorSettings): Promise<void> {
  return spawned.done ? Promise.resolve() : exitInstantly(spawned.exited, settings.background);
}
