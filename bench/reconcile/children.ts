/**
 * Watches the benchmark's ConfigMaps from outside the operators: which child of each name exists
 * now (by uid), so that a child deleted by hand counts as back only when a new one (another uid)
 * exists. The times come from the API, not from the operators' logs.
 */
import type { KubeClient } from '../../runtime/kube/index.ts';
import { ConfigMaps, type ConfigMap } from '../../runtime/structs/builtins.ts';
import { Observer, type ObjectEvent } from '../burst/observer.ts';

export interface Children {
  /** The uid of the child of each name that exists now. */
  readonly present: Map<string, string>;
  readonly observer: Observer<ConfigMap>;
}

export function watchChildren(client: KubeClient, namespace: string): Children {
  const present = new Map<string, string>();
  const track = (event: ObjectEvent<ConfigMap>): void => {
    const { name = '', uid = '' } = event.object.metadata ?? {};
    if (event.type !== 'DELETED') present.set(name, uid);
    // A deletion seen late must not remove the child made again in its place.
    else if (present.get(name) === uid) present.delete(name);
  };
  // Only what exists counts here, not the Observer's "handled".
  return { present, observer: new Observer(client, ConfigMaps, namespace, () => false, track) };
}
