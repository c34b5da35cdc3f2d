/**
 * In-memory indexes of pods, read by a handler of another resource. The indexes are named by
 * their functions; `on.index()` returns a handle whose types (keys and values) come from what the
 * function returns, and handlers read an index with `indices.get(handle)`.
 *
 * Kopf's example reads the indexes in two liveness probes and in a timer every 5 seconds; this
 * port has a creation handler of KopfExamples read them (once, when the object is created) and
 * write the same status field. A store holds one value per pod: a pod is running if its store
 * holds `true` (Kopf's example tests whether the store is non-empty, which every pod's is).
 */
import { builtins, on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

/** (namespace, name) → whether the pod is running. */
export const isRunning = on.index(builtins.Pods, function is_running({ namespace, name, status }) {
  return new Map([[[namespace, name] as const, status.phase === 'Running']]);
});

/** (label, value) → the names of the pods labelled so. */
export const byLabel = on.index(builtins.Pods, function by_label({ labels, name }) {
  return new Map(Object.entries(labels).map(([label, value]) => [[label, value] as const, name]));
});

on.create(KopfExample, function running_pods({ indices, patch, logger }) {
  const labelled = [...indices.get(byLabel)]
    .map(([[label, value], names]) => `${label}=${value}: ${[...names].sort().join(', ')}`);
  logger.info(`Pods by label: ${labelled.sort().join('; ')}`);
  patch.status['running-pods'] = [...indices.get(isRunning)]
    .filter(([[namespace], running]) => (namespace === 'kube-system' || namespace === 'default') && running.has(true))
    .map(([[namespace, name]]) => `${namespace}::${name}`)
    .sort();
});
