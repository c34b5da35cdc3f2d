/**
 * Built-in kinds: Pods are served like any resource, by their built-in descriptor. Each pod seen
 * (created, or found when the operator starts) gets a killer that deletes it after 30 seconds
 * through the operator's client, unless the pod is deleted before: then the killer is cancelled.
 */
import { builtins, on, requires, type Logger, type ResourceClient } from 'kopf';

// What the killer's own call needs, for `kopf rbac`.
requires(builtins.Pods, ['delete']);

/** The running killers: namespace → name → the way to cancel it. */
const tasks = new Map<string, Map<string, AbortController>>();

async function pod_in_sight(
  { namespace, name, logger, client }: {
    namespace: string | null;
    name: string;
    logger: Logger;
    client: ResourceClient
  }
) {
  if (namespace === null || namespace.startsWith('kube-')) return;
  const killer = new AbortController();
  if (!tasks.has(namespace)) tasks.set(namespace, new Map());
  tasks.get(namespace)!.set(name, killer);
  void podKiller(namespace, name, logger, client, killer.signal);
}

on.resume(builtins.Pods, pod_in_sight);
on.create(builtins.Pods, pod_in_sight);

on.delete(builtins.Pods, async function pod_deleted({ namespace, name }) {
  tasks.get(namespace ?? '')?.get(name)?.abort(); // it also removes itself from `tasks`
});

async function podKiller(
  namespace: string,
  name: string,
  logger: Logger,
  client: ResourceClient,
  signal: AbortSignal,
  timeout = 30,
) {
  try {
    logger.info(`=== Pod killing happens in ${timeout}s.`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, timeout * 1000);
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
    });
    logger.info('=== Pod killing happens NOW!');
    await client.delete(builtins.Pods, name, { namespace });
  } catch (error) {
    if (!signal.aborted) throw error;
    logger.info('=== Pod killing is cancelled!');
  } finally {
    tasks.get(namespace)?.delete(name);
  }
}
