/**
 * What the engine's end-to-end tests share: one control plane per test file with the KopfExample
 * CRD, an API client, and embedded operators whose logs are captured for awaiting.
 */
import { after, before } from 'node:test';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { KubeClient } from '../../../runtime/kube/index.ts';
import type { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { operator, type OperatorOptions } from '../../../runtime/operator/operator.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { defaultSettings } from '../../../runtime/config/settings.ts';

export interface Cluster {
  cp: ControlPlane;
  client: KubeClient;
}

/** Starts a control plane before the file's tests and stops it after them. */
export function useCluster(): Cluster {
  const cluster = {} as Cluster;
  before(async () => {
    cluster.cp = await startControlPlane();
    await cluster.cp.installCrds([join(import.meta.dirname, '..', '..', '..', 'examples', 'crd.yaml')]);
    cluster.client = KubeClient.fromKubeConfig(cluster.cp.kubeconfig);
  });
  after(async () => {
    cluster.client?.close();
    await cluster.cp?.stop();
  });
  return cluster;
}

/** An embedded operator with events off and every log record captured. */
export function startOperator(cluster: Cluster, registry: OperatorRegistry, options: Partial<OperatorOptions> = {}) {
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: cluster.cp.kubeconfig, namespaces: ['default'],
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }),
    ...options,
  });
  return { op, capture };
}

type Running = ReturnType<typeof startOperator>;

/**
 * Runs `body` once an embedded operator (as `startOperator` makes it, with `options`) is ready,
 * and stops the operator after it, whether the body passed or failed, and also if the operator
 * never got ready.
 */
export async function withOperator<R>(cluster: Cluster, registry: OperatorRegistry, ...args: [body: (running: Running) => Promise<R>] | [options: Partial<OperatorOptions>, body: (running: Running) => Promise<R>]): Promise<R> {
  const [options, body] = args.length === 1 ? [{}, args[0]] : args;
  const running = startOperator(cluster, registry, options);
  try {
    await running.op.ready;
    return await body(running);
  } finally {
    await running.op.stop();
  }
}
