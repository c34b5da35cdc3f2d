/**
 * What end-to-end tests do to a cluster from the outside, as a user with kubectl would:
 * create, patch, delete, read objects, and wait for an object to reach a state (by watching it).
 * Built on the runtime's own API layer.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import {
  KubeClient, createObject, deleteObject, getObject, isNotFound, keyOf, kubeConfigCredentials, patchObject, watchStream,
} from '../../runtime/kube/index.ts';
import type { FieldMap, KubeObject, MergePatch, ResourceDescriptor } from '../../runtime/structs/resources.ts';
import { waitForObject } from '../../runtime/testing/waiting.ts';

/** Which object: its name, and its namespace for namespaced kinds (`default` if not given). */
export interface ObjectRef {
  name: string;
  namespace?: string;
}

type Resource<T extends KubeObject> = ResourceDescriptor<T, FieldMap>;

export class Cluster {
  readonly client: KubeClient;

  constructor(kubeconfig: KubeConfig | string) {
    let kc = kubeconfig;
    if (typeof kc === 'string') {
      kc = new KubeConfig();
      kc.loadFromFile(kubeconfig as string);
    }
    this.client = new KubeClient(kubeConfigCredentials(kc));
  }

  async create<T extends KubeObject, I extends KubeObject = T>(
    resource: ResourceDescriptor<T, FieldMap, I>, object: I, namespace?: string,
  ): Promise<T> {
    return createObject(
      this.client,
      resource,
      object,
      {
        namespace: namespace ?? (resource.scope === 'Namespaced' ? object.metadata?.namespace ?? 'default' : undefined)
      },
    );
  }

  async read<T extends KubeObject>(resource: Resource<T>, ref: ObjectRef): Promise<T> {
    return getObject(this.client, resource, fullRef(resource, ref));
  }

  /** Reads the object, or `null` when it does not exist. */
  async find<T extends KubeObject>(resource: Resource<T>, ref: ObjectRef): Promise<T | null> {
    try {
      return await this.read(resource, ref);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async mergePatch<T extends KubeObject>(resource: Resource<T>, ref: ObjectRef, patch: MergePatch<T>): Promise<T> {
    return patchObject(this.client, resource, fullRef(resource, ref), patch);
  }

  /** Asks for deletion (finalizers may hold it); does not wait. */
  async delete<T extends KubeObject>(resource: Resource<T>, ref: ObjectRef): Promise<void> {
    await deleteObject(this.client, resource, fullRef(resource, ref));
  }

  /** Removes the object whatever holds it (its finalizers too, as no operator may be running). */
  async purge<T extends KubeObject>(resource: Resource<T>, ref: ObjectRef): Promise<void> {
    if (!(await this.find(resource, ref))) return;
    const release = { metadata: { finalizers: null } } as MergePatch<T>;
    await this.mergePatch(resource, ref, release).catch(ignoreNotFound);
    await this.delete(resource, ref).catch(ignoreNotFound);
    await this.waitForGone(resource, ref);
  }

  /**
   * Resolves with the object once `predicate` holds for it (`null` stands for "absent"); watches
   * the object rather than polling. Rejects after `timeout` ms with the last state seen.
   */
  async waitFor<T extends KubeObject>(
    resource: Resource<T>,
    ref: ObjectRef,
    predicate: (object: T | null) => boolean,
    options: { timeout?: number } = {},
  ): Promise<T | null> {
    return waitForObject(this.client, resource, fullRef(resource, ref), predicate, options);
  }

  /**
   * Resolves with the objects of a collection once `predicate` holds for them (checked after the
   * listing and after every change), e.g. the events about an object; rejects after `timeout` ms.
   */
  async waitForList<T extends KubeObject>(
    resource: Resource<T>,
    selection: { namespace?: string; fieldSelector?: string; labelSelector?: string },
    predicate: (objects: T[]) => boolean,
    options: { timeout?: number } = {},
  ): Promise<T[]> {
    const { timeout = 30_000 } = options;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), timeout);
    const objects = new Map<string, T>();
    let listed = false;
    try {
      for await (const event of watchStream(this.client, resource, { ...selection, signal: stop.signal })) {
        if (event.type === 'BOOKMARK') continue;
        if (event.type === 'LISTED_DONE') listed = true;
        else if (event.type === 'DELETED') objects.delete(keyOf(event.object));
        else objects.set(keyOf(event.object), event.object);
        if (listed && predicate([...objects.values()])) return [...objects.values()];
      }
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
    throw new Error(
      `${resource.plural} ${JSON.stringify(selection)} did not reach the expected state within ${timeout} ms; last ` +
        `seen:\n${JSON.stringify([...objects.values()], null, 2)}`
    );
  }

  /** Waits until the object is gone (its finalizers released, if any). */
  async waitForGone<T extends KubeObject>(
    resource: Resource<T>,
    ref: ObjectRef,
    options: { timeout?: number } = {},
  ): Promise<void> {
    await this.waitFor(resource, ref, (object) => object === null, options);
  }

  close(): void {
    this.client.close();
  }
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

function fullRef(resource: Resource<KubeObject>, ref: ObjectRef): { name: string; namespace: string | null } {
  return { name: ref.name, namespace: resource.scope === 'Namespaced' ? ref.namespace ?? 'default' : null };
}

function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}
