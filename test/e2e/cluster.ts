/**
 * What end-to-end tests do to a cluster from the outside, as a user with kubectl would:
 * create, patch, delete, read objects, and wait for an object to reach a state (by watching it).
 */
import { readFileSync } from 'node:fs';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { apiVersionOf, resourcePath, type KubeObject, type ResourceDescriptor } from '../../runtime/structs/resources.ts';

/** Which object: its name, and its namespace for namespaced kinds (`default` if not given). */
export interface ObjectRef {
  name: string;
  namespace?: string;
}

export class Cluster {
  readonly kubeconfig: KubeConfig;
  private readonly api: KubernetesObjectApi;

  constructor(kubeconfig: KubeConfig | string) {
    if (typeof kubeconfig === 'string') {
      this.kubeconfig = new KubeConfig();
      this.kubeconfig.loadFromFile(kubeconfig);
    } else {
      this.kubeconfig = kubeconfig;
    }
    this.api = KubernetesObjectApi.makeApiClient(this.kubeconfig);
  }

  async create<T extends KubeObject>(object: T): Promise<T> {
    return await this.api.create(object as KubernetesObject) as T;
  }

  async read<T extends KubeObject>(resource: ResourceDescriptor<T>, ref: ObjectRef): Promise<T> {
    return await this.api.read(header(resource, ref)) as T;
  }

  /** Reads the object, or `null` when it does not exist. */
  async find<T extends KubeObject>(resource: ResourceDescriptor<T>, ref: ObjectRef): Promise<T | null> {
    try {
      return await this.read(resource, ref);
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  async mergePatch<T extends KubeObject>(resource: ResourceDescriptor<T>, ref: ObjectRef, patch: Record<string, unknown>): Promise<T> {
    const target = header(resource, ref);
    const body = { ...patch, ...target, metadata: { ...(patch.metadata as object | undefined), ...target.metadata } };
    return await this.api.patch(body, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch) as T;
  }

  /** Asks for deletion (finalizers may hold it); does not wait. */
  async delete(resource: ResourceDescriptor, ref: ObjectRef): Promise<void> {
    await this.api.delete(header(resource, ref));
  }

  /**
   * Resolves with the object once `predicate` holds for it (`null` stands for "absent"); watches
   * the object rather than polling. Rejects after `timeout` ms with the last state seen.
   */
  async waitFor<T extends KubeObject>(resource: ResourceDescriptor<T>, ref: ObjectRef, predicate: (object: T | null) => boolean, options: { timeout?: number } = {}): Promise<T | null> {
    const { timeout = 30_000 } = options;
    const path = resourcePath(resource, { namespace: namespaceOf(resource, ref) });
    const current = await this.find(resource, ref);
    if (predicate(current)) return current;
    let last: T | null = current;
    let controller: AbortController | undefined;
    try {
      return await new Promise<T | null>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${resource.kind} ${namespaceOf(resource, ref) ?? ''}/${ref.name} did not reach the expected state within ${timeout} ms; last seen:\n${JSON.stringify(last, null, 2)}`)), timeout);
        const settle = (value: T | null): void => { clearTimeout(timer); resolve(value); };
        const query = { fieldSelector: `metadata.name=${ref.name}`, resourceVersion: current?.metadata?.resourceVersion ?? '0' };
        new Watch(this.kubeconfig).watch(path, query, (phase: string, object: T) => {
          last = phase === 'DELETED' ? null : object;
          if (predicate(last)) settle(last);
        }, (error: unknown) => {
          if (error) { clearTimeout(timer); reject(error); }
        }).then((c) => { controller = c; }, reject);
      });
    } finally {
      controller?.abort();
    }
  }

  /** Removes the object whatever holds it (its finalizers too, as no operator may be running). */
  async purge(resource: ResourceDescriptor, ref: ObjectRef): Promise<void> {
    if (!(await this.find(resource, ref))) return;
    await this.mergePatch(resource, ref, { metadata: { finalizers: null } }).catch(ignoreNotFound);
    await this.delete(resource, ref).catch(ignoreNotFound);
    await this.waitForGone(resource, ref);
  }

  /** Waits until the object is gone (its finalizers released, if any). */
  async waitForGone(resource: ResourceDescriptor, ref: ObjectRef, options: { timeout?: number } = {}): Promise<void> {
    await this.waitFor(resource, ref, (object) => object === null, options);
  }
}

function namespaceOf(resource: ResourceDescriptor, ref: ObjectRef): string | undefined {
  return resource.scope === 'Namespaced' ? ref.namespace ?? 'default' : undefined;
}

function header(resource: ResourceDescriptor, ref: ObjectRef): { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } {
  const namespace = namespaceOf(resource, ref);
  return { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: namespace ? { name: ref.name, namespace } : { name: ref.name } };
}

/** The documents of a YAML file (e.g. examples/obj.yaml). */
export function loadYaml<T extends KubeObject = KubeObject>(path: string): T[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJS() as T).filter(Boolean);
}

/** The reference of an object. */
export function refOf(object: KubeObject): ObjectRef {
  const name = object.metadata?.name;
  if (!name) throw new Error(`An object without a name: ${JSON.stringify(object)}`);
  return object.metadata?.namespace ? { name, namespace: object.metadata.namespace } : { name };
}

function ignoreNotFound(error: unknown): void {
  if (statusOf(error) !== 404) throw error;
}

function statusOf(error: unknown): number | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'number') return error.code;
  return undefined;
}
