/**
 * Manifests that `kopf demo` and `kopf dev` put on a local control plane: CRD files named one by
 * one or by folder, and sample objects created with the API resource their kind resolves to.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeClient, createObject, resolveResource } from '../kube/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { readCrds } from '../testing/controlplane/crd-installation.ts';

/** What a local control plane is given: CRD files (folders expanded) and sample objects. */
export interface LocalManifests {
  crds: readonly string[];
  samples: readonly KubeObject[];
}

/**
 * The CRD files and the sample objects of the options, read before anything is started; or what
 * is wrong with them, naming the option.
 */
export function readManifests(crdPaths: readonly string[], objectFiles: readonly string[]): LocalManifests | string {
  let crds: string[];
  try {
    crds = crdFiles(crdPaths);
    readCrds(crds);
  } catch (error) {
    return `--crd: ${thrownText(error)}`;
  }
  try {
    return { crds, samples: objectFiles.flatMap((file) => readObjects(file)) };
  } catch (error) {
    return `--object: ${thrownText(error)}`;
  }
}

/**
 * CRD files: files as given, folders searched (not recursively) for `.yaml`/`.yml`/`.json`, in name
 * order. A path that cannot be read is an error that names it.
 */
export function crdFiles(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    const full = resolve(path);
    if (!reading(path, () => statSync(full)).isDirectory()) return [full];
    const names = reading(path, () => readdirSync(full));
    return names.filter((name) => /\.(ya?ml|json)$/.test(name)).sort().map((name) => join(full, name));
  });
}

/** The objects of a YAML file, each with apiVersion, kind and a name; a message naming the file if not. */
export function readObjects(file: string): KubeObject[] {
  const documents = parseAllDocuments(reading(file, () => readFileSync(file, 'utf8')));
  const objects = documents.map((d) => d.toJS() as KubeObject | null).filter((o) => o !== null);
  if (!objects.length || objects.some((o) => !o.apiVersion || !o.kind || !o.metadata?.name)) {
    throw new Error(`${file} holds no objects, or one without apiVersion, kind and metadata.name`);
  }
  return objects;
}

/** What `read` returns; its failure as an error that names the path (Node's EISDIR, for one, does not). */
function reading<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file or folder'
      : code === 'EISDIR' ? 'it is a folder, not a file' : (error as Error).message;
    throw new Error(`cannot read ${path}: ${why}`, { cause: error });
  }
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
