/**
 * A fault proxy for a test file, in front of its `useCluster()` control plane: started by the
 * first test that asks for it (a root before-hook could run before the cluster's has finished),
 * closed after the file's tests.
 */
import { after } from 'node:test';
import type { TestCluster } from '../use-cluster.ts';
import { startFaultProxy, type FaultProxy } from './proxy.ts';

export function useFaultProxy(cluster: TestCluster): () => Promise<FaultProxy> {
  let starting: Promise<FaultProxy> | undefined;
  after(async () => {
    await (await starting)?.close();
  });
  return () => (starting ??= startFaultProxy(cluster.cp.credentials));
}
