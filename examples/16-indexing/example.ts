/**
 * In-memory indexes of pods, read by liveness probes and by a timer of another resource. The
 * indexes are named by their functions; `on.index()` returns a handle whose types (keys and
 * values) come from what the function returns, and handlers read an index with
 * `indices.get(handle)`.
 *
 * A store holds one value per pod: a pod is running if its store holds `true` (Kopf's example
 * tests whether the store is non-empty, which every pod's is).
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

on.probe(function pod_count({ indices }) {
  return indices.get(isRunning).size;
});

on.probe(function pod_names({ indices }) {
  return [...indices.get(isRunning)].map(([[, name]]) => name);
});

on.timer(KopfExample, function intervalled({ indices, patch, logger }) {
  const labelled = [...indices.get(byLabel)]
    .map(([[label, value], names]) => `${label}=${value}: ${[...names].sort().join(', ')}`);
  logger.info(`Pods by label: ${labelled.sort().join('; ')}`);
  patch.status['running-pods'] = [...indices.get(isRunning)]
    .filter(([[namespace], running]) => (namespace === 'kube-system' || namespace === 'default') && running.has(true))
    .map(([[namespace, name]]) => `${namespace}::${name}`)
    .sort();
}, { interval: 5 });
