/**
 * The cleanup handlers at the operator's exit. They are not guaranteed to finish (as in Kopf), but
 * they must not hold the exit forever: past `process.ultimateExitingTimeout` they are cancelled,
 * and then left if they do not end.
 */
import type { ActivityHandler } from '../registry/handlers.ts';
import { aborted } from '../structs/aborts.ts';
import { exitInstantly } from '../queueing/sleeping.ts';
import { runActivity, type ActivityEnv } from './activities.ts';

/** Runs the cleanup handlers with `env` (its signal is replaced by the exit's limit). */
export async function cleanUp(handlers: readonly ActivityHandler[], env: Omit<ActivityEnv, 'signal'>): Promise<void> {
  const { settings } = env;
  const logger = env.logger.child('kopf.operator');
  const limit = settings.process.ultimateExitingTimeout;
  const signal = limit === null ? new AbortController().signal : AbortSignal.timeout(limit * 1000);
  let ended = false;
  const cleanup = runActivity([...handlers], 'cleanup', { ...env, signal })
    .catch((e: unknown) => logger.error('Cleanup failed.', e))
    .finally(() => { ended = true; });
  await Promise.race([cleanup, aborted(signal).then(() => exitInstantly(cleanup, settings.background))]);
  if (!ended) {
    logger.warning(`The cleanup handlers were still running ${limit} s after the cleanup began, `
      + 'and did not end when cancelled: they are left as they are.');
  }
}
