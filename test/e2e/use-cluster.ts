/**
 * One local control plane for a test file: started before the file's tests, with its CRDs
 * installed and an API client, and stopped after them. A file that must create objects before its
 * tests cannot do it in a root `before()` of its own: Node starts root before-hooks without
 * waiting for the earlier ones (its after-hooks do run one after another, in order).
 */
import { after, before } from 'node:test';
import {
  startControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
  type CrdSource,
} from '../../runtime/testing.ts';
import { KubeClient, createObject, type KubeClientOptions } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { CRD_YAML } from './rules.ts';

export interface TestCluster {
  cp: ControlPlane;
  client: KubeClient;
}

export interface TestClusterOptions extends ControlPlaneOptions {
  /** The CRDs to install; the examples' KopfExample CRD if not given. */
  crds?: readonly CrdSource[];
  client?: KubeClientOptions;
  /** A namespace to create for the file's tests. */
  namespace?: string;
}

/** Starts a control plane before the file's tests and stops it after them. */
export function useCluster(options: TestClusterOptions = {}): TestCluster {
  const { crds = [CRD_YAML], client, namespace, ...controlPlane } = options;
  const cluster = {} as TestCluster;
  before(async () => {
    cluster.cp = await startControlPlane(controlPlane);
    await cluster.cp.installCrds(crds);
    cluster.client = KubeClient.fromKubeConfig(cluster.cp.kubeconfig, client);
    if (namespace) await createObject(cluster.client, Namespaces, { metadata: { name: namespace } });
  });
  after(async () => {
    cluster.client?.close();
    await cluster.cp?.stop();
  });
  return cluster;
}
