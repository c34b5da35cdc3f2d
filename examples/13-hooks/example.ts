/**
 * Operator-level handlers: startup (one simple, one retried), cleanup, a login handler whose
 * credentials expire every 30 s (so it runs again), two probes for the liveness endpoint, and an
 * event handler on pods that starts a background task per pod, stopped at cleanup.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { builtins, loginWithKubeconfig, on, TemporaryError, type ConnectionInfo, type Logger } from 'kopf';

/** The stoppers of the pods' tasks, by namespace and name. */
const STOPPERS = new Map<string, Map<string, AbortController>>();

on.startup(function startup_fn_simple({ logger }) {
  // Kopf's example creates its asyncio lock here; Node's one thread needs none.
  logger.info('Initialising the task-lock...');
});

on.startup(function startup_fn_retried({ retry, logger }) {
  if (retry < 3) throw new TemporaryError(`Going to succeed in ${3 - retry}s`, { delay: 1 });
  logger.info('Starting retried...');
});

on.cleanup(function cleanup_fn({ logger }) {
  logger.info('Cleaning up...');
  for (const stoppers of STOPPERS.values()) {
    for (const stopper of stoppers.values()) stopper.abort();
  }
  logger.info('All pod-tasks are requested to stop...');
});

on.login(async function login_fn(): Promise<ConnectionInfo> {
  console.log('Logging in in 2s...');
  await sleep(2000);
  // The kubeconfig's credentials, declared to expire: the login runs again then.
  return { ...(await loginWithKubeconfig()), expiration: new Date(Date.now() + 30_000) };
}, { errors: 'permanent' });

on.probe(function tasks_count() {
  return [...STOPPERS.values()].reduce((sum, stoppers) => sum + stoppers.size, 0);
});

on.probe(function monitored_objects() {
  return Object.fromEntries([...STOPPERS].map(([namespace, stoppers]) => [namespace, [...stoppers.keys()].sort()]));
});

on.event(builtins.Pods, function pod_task({ namespace, name, logger }) {
  const stoppers = STOPPERS.get(namespace ?? '') ?? new Map<string, AbortController>();
  STOPPERS.set(namespace ?? '', stoppers);
  if (stoppers.has(name)) return;
  const stopper = new AbortController();
  stoppers.set(name, stopper);
  void serve(logger, stopper.signal);
});

async function serve(logger: Logger, stopped: AbortSignal): Promise<void> {
  while (!stopped.aborted) {
    await sleep((1 + Math.floor(Math.random() * 10)) * 1000, undefined, { signal: stopped }).catch(() => undefined);
    if (!stopped.aborted) logger.info('Served by the background task.');
  }
  logger.info('Serving is finished by request.');
}
