/**
 * Which objects a change of a related object concerns: for an owned child, the object its
 * controller owner reference names (by uid, the key of the object's queue); for a watched object,
 * those its `map` names (by namespace and name). What the cluster sends is not trusted: anything
 * malformed maps to nothing.
 */
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { ReconcileRequest } from '../registry/handlers.ts';

/** The uid of the object of `resource` that controls `child`, if there is one. */
export function controllerUid(child: KubeObject, resource: ResourceDescriptor): string | undefined {
  const refs: unknown = child.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  for (const ref of refs as unknown[]) {
    if (!ref || typeof ref !== 'object') continue;
    const { controller, kind, apiVersion, uid } = ref as Record<string, unknown>;
    // Any served version of the group may name the owner: only the group and the kind identify it.
    if (controller !== true || kind !== resource.kind || groupOf(apiVersion) !== resource.group) continue;
    if (typeof uid === 'string' && uid) return uid;
  }
  return undefined;
}

function groupOf(apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The `namespace/name` that names an object among its resource's (`/name` when cluster-scoped). */
export function nameKey(namespace: string | null | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** The names of the requests a `map` returned; malformed ones are left out (and counted, for a warning). */
export function requestedNames(requests: unknown): { names: string[]; malformed: number } {
  const names: string[] = [];
  let malformed = 0;
  if (!Array.isArray(requests)) return { names, malformed: requests === undefined || requests === null ? 0 : 1 };
  for (const request of requests as unknown[]) {
    const { namespace, name } = (request ?? {}) as Partial<ReconcileRequest>;
    if (name === undefined || name === null) continue; // the object names none: nothing to reconcile
    if (typeof name !== 'string' || (namespace !== undefined && namespace !== null && typeof namespace !== 'string')) {
      malformed++;
      continue;
    }
    names.push(nameKey(namespace, name));
  }
  return { names, malformed };
}
