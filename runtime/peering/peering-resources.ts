/**
 * The peering resources, as Kopf defines them: `ClusterKopfPeering` for cluster-wide operators and
 * `KopfPeering` in each served namespace for namespaced ones, in `kopf.dev/v1` and in the older
 * `zalando.org/v1` (both served when both exist). Their only content is the status of peer records.
 * The manifests are what a user applies (`kopf peering`), with a `default` object of each.
 */
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from '../kube/index.ts';

export interface PeeringObject extends KubeObject {
  status?: { [identity: string]: unknown };
}

const GROUPS = ['kopf.dev', 'zalando.org'] as const;

function descriptor(group: string, clusterwide: boolean): ResourceDescriptor<PeeringObject> {
  const kind = clusterwide ? 'ClusterKopfPeering' : 'KopfPeering';
  return {
    group, version: 'v1', kind, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(),
    scope: clusterwide ? 'Cluster' : 'Namespaced',
  };
}

/** Every peering resource that can exist for the mode, the current group first. */
export function peeringResources(clusterwide: boolean): ResourceDescriptor<PeeringObject>[] {
  return GROUPS.map((group) => descriptor(group, clusterwide));
}

/** The peering resources of the mode that the API server serves now. */
export async function servedPeeringResources(
  client: KubeClient,
  clusterwide: boolean,
): Promise<ResourceDescriptor<PeeringObject>[]> {
  const served: ResourceDescriptor<PeeringObject>[] = [];
  for (const resource of peeringResources(clusterwide)) {
    const found = await client.discovery.resources(resource.group, resource.version);
    if (found.some((r) => r.plural === resource.plural)) served.push(resource);
  }
  return served;
}

/** The CRDs of `kopf.dev/v1` and the `default` peering objects, to apply to a cluster. */
export function peeringManifests(namespace = 'default'): KubeObject[] {
  const crds = [true, false].map((clusterwide) => {
    const { group, kind, plural, singular, scope } = descriptor('kopf.dev', clusterwide);
    return {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        scope, group, names: { kind, plural, singular },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        }],
      },
    };
  });
  return [
    ...crds,
    { apiVersion: 'kopf.dev/v1', kind: 'ClusterKopfPeering', metadata: { name: 'default' } },
    { apiVersion: 'kopf.dev/v1', kind: 'KopfPeering', metadata: { namespace, name: 'default' } },
  ];
}
