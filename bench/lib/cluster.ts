/**
 * The local control plane a benchmark runs on: started with the KopfExample CRD installed, a client
 * for the benchmark's own requests, and both gone when the benchmark's body ends, however it ends.
 */
import { KubeClient, type KubeClientOptions } from '../../runtime/kube/index.ts';
import { startControlPlane, type ControlPlane } from '../../runtime/testing.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';

export async function onControlPlane<T>(
  body: (cp: ControlPlane, client: KubeClient) => Promise<T>, clientOptions: KubeClientOptions = {},
): Promise<T> {
  const cp = await startControlPlane();
  const client = KubeClient.fromKubeConfig(cp.kubeconfig, clientOptions);
  try {
    await cp.installCrds([CRD_YAML]);
    return await body(cp, client);
  } finally {
    client.close();
    await cp.stop();
  }
}
