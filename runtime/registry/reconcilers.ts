/**
 * `on.reconcile`'s options, checked and normalised: its filters, its resync period, and its
 * related resources — owned ones (mapped through their controller owner references) and watched
 * ones (mapped by the user's function).
 */
import type { KubeObject, ResourceDescriptor, UntypedFields } from '../structs/resources.ts';
import type {
  OwnedResource, ReconcileHandler, ReconcileOptions, RelatedObject, RelatedResource, ResourceRef, WatchedResource,
} from './handlers.ts';
import { RegistrationError } from './ids.ts';
import {
  checkFunction, checkResource, filtersOf, handlerBase, seconds, type LooseOptions,
} from './registration-options.ts';

export type LooseReconcileOptions = LooseOptions & ReconcileOptions<KubeObject, UntypedFields>;

const WHAT = 'on.reconcile';

export function reconcilerOf(resource: ResourceRef, fn: Function, options: LooseReconcileOptions): ReconcileHandler {
  checkResource(resource, WHAT);
  checkFunction(fn, WHAT);
  const base = handlerBase(fn, options, WHAT);
  for (const name of ['old', 'new', 'errors', 'timeout', 'retries', 'backoff', 'optional', 'deleted'] as const) {
    if (options[name] !== undefined) {
      throw new RegistrationError(`${WHAT} '${base.id}': \`${name}\` is not an option of reconcilers.`);
    }
  }
  const resync = seconds(options.resync, 'resync', WHAT);
  if (resync === 0) throw new RegistrationError(`${WHAT} '${base.id}': \`resync\` must be above 0.`);
  return {
    kind: 'reconcile', ...base, resource, filters: filtersOf(options, WHAT), resync,
    finalizer: Boolean(options.finalizer),
    owns: listed(options.owns, 'owns', base.id).map((owned) => ownedOf(owned, base.id)),
    watches: listed(options.watches, 'watches', base.id).map((watched) => watchedOf(watched, base.id)),
  };
}

function listed<V>(value: readonly V[] | undefined, name: string, id: string): readonly V[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RegistrationError(`${WHAT} '${id}': \`${name}\` must be an array.`);
  return value;
}

function ownedOf(owned: ResourceDescriptor | OwnedResource, id: string): RelatedResource {
  const what = `${WHAT} '${id}' (owns)`;
  const given = typeof owned === 'object' && owned !== null && 'resource' in owned;
  const resource = given ? owned.resource : owned;
  checkDescriptor(resource, what);
  return { resource, metadataOnly: given && Boolean(owned.metadataOnly), map: null };
}

function watchedOf(watched: WatchedResource, id: string): RelatedResource {
  const what = `${WHAT} '${id}' (watches)`;
  if (typeof watched !== 'object' || watched === null) {
    throw new RegistrationError(`${what}: each entry must be \`{ resource, map }\`.`);
  }
  checkDescriptor(watched.resource, what);
  checkFunction(watched.map, `${what}: map`);
  const map = (object: RelatedObject) => watched.map(object);
  return { resource: watched.resource, metadataOnly: Boolean(watched.metadataOnly), map };
}

/**
 * Related resources are named by descriptors (`builtins.ConfigMaps`, generated ones), not resolved
 * by name; the types say so, and this tells operators in plain JavaScript.
 */
function checkDescriptor(resource: unknown, what: string): void {
  checkResource(resource, what);
  if (typeof resource === 'string') {
    throw new RegistrationError(`${what}: name the resource by its descriptor (e.g. \`builtins.ConfigMaps\`), ` +
      `not by a name ('${resource}').`);
  }
}
