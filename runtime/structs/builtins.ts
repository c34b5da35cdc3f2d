import type { KubeObject, ObjectMeta, ResourceDescriptor } from './resources.ts';

/** Descriptors for the built-in kinds an operator most often serves or creates. */

export interface Namespace extends KubeObject { metadata?: ObjectMeta; spec?: { finalizers?: string[] }; status?: { phase?: string } }
export interface ConfigMap extends KubeObject { data?: { [key: string]: string }; binaryData?: { [key: string]: string } }
export interface Secret extends KubeObject { type?: string; data?: { [key: string]: string }; stringData?: { [key: string]: string } }
export interface Pod extends KubeObject { spec?: { [key: string]: unknown }; status?: { phase?: string; [key: string]: unknown } }
export interface Event extends KubeObject {
  involvedObject?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  reason?: string; message?: string; type?: string; source?: { component?: string; host?: string };
  firstTimestamp?: string; lastTimestamp?: string; eventTime?: string | null; count?: number;
  reportingComponent?: string; reportingInstance?: string; action?: string;
}
export interface CustomResourceDefinition extends KubeObject { spec?: { [key: string]: unknown }; status?: { conditions?: { type: string; status: string }[]; [key: string]: unknown } }

const core = (plural: string, kind: string, scope: 'Namespaced' | 'Cluster', extra: Partial<ResourceDescriptor> = {}) =>
  ({ group: '', version: 'v1', plural, singular: kind.toLowerCase(), kind, scope, ...extra }) as const;

export const Namespaces: ResourceDescriptor<Namespace> = core('namespaces', 'Namespace', 'Cluster', { shortNames: ['ns'], subresources: ['status', 'finalize'] });
export const ConfigMaps: ResourceDescriptor<ConfigMap> = core('configmaps', 'ConfigMap', 'Namespaced', { shortNames: ['cm'] });
export const Secrets: ResourceDescriptor<Secret> = core('secrets', 'Secret', 'Namespaced');
export const Pods: ResourceDescriptor<Pod> = core('pods', 'Pod', 'Namespaced', { shortNames: ['po'], subresources: ['status'] });
export const Events: ResourceDescriptor<Event> = core('events', 'Event', 'Namespaced', { shortNames: ['ev'] });
export const CustomResourceDefinitions: ResourceDescriptor<CustomResourceDefinition> = {
  group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition', scope: 'Cluster', shortNames: ['crd', 'crds'], subresources: ['status'],
};
