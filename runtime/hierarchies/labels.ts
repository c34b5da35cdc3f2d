/**
 * Labels on children: the owner's labels by default, so that what selects the owner selects its
 * children too; `nested` reaches templates inside the child (a Deployment's `spec.template`), whose
 * labels the objects made from them carry.
 */
import type { KubeObject } from '../structs/resources.ts';
import { isMapping } from '../structs/diffs.ts';
import { each, metadataOf, ownerOrHandled, type Children } from './owners.ts';

export interface LabelOptions {
  /** Overwrite labels the child has already (by default they are kept). */
  forced?: boolean;
  /** Dotted paths of objects inside the child to label too, if they are there: `'spec.template'`. */
  nested?: string | readonly string[];
}

type Labels = Readonly<Record<string, string>>;

/** Sets the labels on each child (the handled object's labels by default); returns the children. */
export function label<C extends KubeObject>(children: C, labels?: Labels, options?: LabelOptions): C;
export function label<C extends KubeObject>(children: C[], labels?: Labels, options?: LabelOptions): C[];
export function label<C extends KubeObject>(
  children: Children<C>, labels?: Labels, options: LabelOptions = {},
): Children<C> {
  const values = labels ?? ownerOrHandled(undefined).metadata?.labels ?? {};
  const nested = typeof options.nested === 'string' ? [options.nested] : options.nested ?? [];
  for (const child of each(children)) {
    for (const target of [child, ...nested.map((path) => objectAt(child, path))]) {
      if (!target) continue;
      const own = metadataOf(target).labels ??= {};
      for (const [key, value] of Object.entries(values)) if (options.forced || !(key in own)) own[key] = value;
    }
  }
  return children;
}

/** The object at a dotted path inside another, if there is one. */
function objectAt(object: KubeObject, path: string): KubeObject | undefined {
  let value: unknown = object;
  for (const key of path.split('.')) value = isMapping(value) ? value[key] : undefined;
  return isMapping(value) ? value as KubeObject : undefined;
}
