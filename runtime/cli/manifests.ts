/**
 * Manifests that `kopf demo` and `kopf dev` put on a local control plane: CRD files named one by
 * one or by folder, and sample objects created with the API resource their kind resolves to.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeClient, createObject, resolveResource } from '../kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';

/** CRD files: files as given, folders searched (not recursively) for `.yaml`/`.yml`/`.json`, in name order. */
export function crdFiles(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    const full = resolve(path);
    if (!statSync(full).isDirectory()) return [full];
    return readdirSync(full).filter((name) => /\.(ya?ml|json)$/.test(name)).sort().map((name) => join(full, name));
  });
}

/** The objects of a YAML file, each with apiVersion, kind and a name; a message naming the file if not. */
export function readObjects(file: string): KubeObject[] {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'));
  const objects = documents.map((d) => d.toJS() as KubeObject | null).filter((o) => o !== null);
  if (!objects.length || objects.some((o) => !o.apiVersion || !o.kind || !o.metadata?.name)) {
    throw new Error(`${file} holds no objects, or one without apiVersion, kind and metadata.name`);
  }
  return objects;
}

export interface CreatedObject {
  readonly resource: ResourceDescriptor;
  readonly object: KubeObject;
  /** `null` for cluster-scoped objects. */
  readonly namespace: string | null;
}

/** Creates the object as its kind is served (namespace `default` unless it says otherwise). */
export async function createSample(client: KubeClient, object: KubeObject): Promise<CreatedObject> {
  const [group, version] = object.apiVersion!.includes('/') ? object.apiVersion!.split('/') : ['', object.apiVersion!];
  const resource = await resolveResource(client, { group, version, name: object.kind! });
  const namespace = resource.scope === 'Namespaced' ? object.metadata?.namespace ?? 'default' : null;
  const created = await createObject(client, resource, object, namespace === null ? {} : { namespace });
  return { resource, object: created as KubeObject, namespace };
}
