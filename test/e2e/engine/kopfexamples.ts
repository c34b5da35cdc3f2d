/**
 * The KopfExample objects of the engine's tests, in the `default` namespace of the file's control
 * plane: made, changed, removed after the test, and watched from outside the operator.
 */
import type { TestContext } from 'node:test';
import { createObject, deleteObject, patchObject } from '../../../runtime/kube/index.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import type { TestCluster } from '../use-cluster.ts';

export interface ExampleInit {
  labels?: Record<string, string>;
  /** `spec.field`; 'a' if not given. */
  field?: string;
}

/** Helpers bound to the file's cluster; they read it when called, once its `before` has run. */
export function examplesOf(cluster: TestCluster) {
  const ref = (name: string) => ({ namespace: 'default', name });
  return {
    ref,
    create(name: string, init: ExampleInit = {}): Promise<KubeObject> {
      const metadata = { name, namespace: 'default', labels: init.labels };
      return createObject(cluster.client, KopfExample, { metadata, spec: { field: init.field ?? 'a' } });
    },
    async setField(name: string, field: string): Promise<void> {
      await patchObject(cluster.client, KopfExample, ref(name), { spec: { field } });
    },
    /** Deletes the object after the test, if it is still there. */
    cleanup(t: TestContext, name: string): void {
      t.after(() => deleteObject(cluster.client, KopfExample, ref(name)).catch(() => undefined));
    },
    /** A client of its own that watches the objects from outside the operator, closed after the test. */
    watcher(t: TestContext): Cluster {
      const observer = new Cluster(cluster.cp.kubeconfigPath);
      t.after(() => observer.client.close());
      return observer;
    },
  };
}
