/**
 * Descriptors for the built-in kinds an operator most often serves or creates, typed with the
 * models of `@kubernetes/client-node`. The models are imported as types only: they cost nothing
 * at run time (the published JavaScript has no import of client-node here, and an operator never
 * loads client-node's API models through this module).
 *
 *   on.create(builtins.Pods, async function pod_seen({ spec }) { … spec.containers … });
 *   await client.create(builtins.ConfigMaps, { metadata: { name, namespace }, data: { … } });
 */
import type {
  CoreV1Event, V1ClusterRole, V1ClusterRoleBinding, V1ConfigMap, V1CronJob, V1CustomResourceDefinition, V1DaemonSet,
  V1Deployment, V1HorizontalPodAutoscaler, V1Ingress, V1Job, V1Lease, V1Namespace, V1NetworkPolicy, V1Node,
  V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1PodDisruptionBudget, V1ReplicaSet, V1Role, V1RoleBinding,
  V1Secret, V1Service, V1ServiceAccount, V1StatefulSet, V1StorageClass,
} from '@kubernetes/client-node';
import type { KubeObject, ResourceDescriptor, UntypedFields } from './resources.ts';

/**
 * A client-node model as it is on the wire, and so in this runtime: client-node turns date-times
 * into `Date` objects when it deserialises; here they stay the strings the API server sent.
 */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type Pod = Wire<V1Pod>;
export type Service = Wire<V1Service>;
export type ConfigMap = Wire<V1ConfigMap>;
export type Secret = Wire<V1Secret>;
export type ServiceAccount = Wire<V1ServiceAccount>;
export type PersistentVolumeClaim = Wire<V1PersistentVolumeClaim>;
export type PersistentVolume = Wire<V1PersistentVolume>;
export type Namespace = Wire<V1Namespace>;
export type Node = Wire<V1Node>;
/** A core `v1` Event: what `event()`, `info()`, `warn()` and `exception()` post. */
export type Event = Wire<CoreV1Event>;
export type Deployment = Wire<V1Deployment>;
export type StatefulSet = Wire<V1StatefulSet>;
export type DaemonSet = Wire<V1DaemonSet>;
export type ReplicaSet = Wire<V1ReplicaSet>;
export type Job = Wire<V1Job>;
export type CronJob = Wire<V1CronJob>;
export type Role = Wire<V1Role>;
export type RoleBinding = Wire<V1RoleBinding>;
export type ClusterRole = Wire<V1ClusterRole>;
export type ClusterRoleBinding = Wire<V1ClusterRoleBinding>;
export type Ingress = Wire<V1Ingress>;
export type NetworkPolicy = Wire<V1NetworkPolicy>;
export type Lease = Wire<V1Lease>;

/** A Lease's MicroTime (`renewTime`, `acquireTime`): RFC 3339 with microseconds, in UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
export type HorizontalPodAutoscaler = Wire<V1HorizontalPodAutoscaler>;
export type PodDisruptionBudget = Wire<V1PodDisruptionBudget>;
export type StorageClass = Wire<V1StorageClass>;
export type CustomResourceDefinition = Wire<V1CustomResourceDefinition>;

/**
 * A built-in object as the API server sends it. Go writes the `spec` and `status` of the built-in
 * kinds always, if only as `{}`, so they are there to read; client-node's models have them
 * optional, as they are to write. A built-in descriptor reads this and takes the model to write.
 */
export type Sent<T> = Omit<T, SentParts<T>> & { [K in SentParts<T>]-?: NonNullable<T[K]> };
type SentParts<T> = Extract<keyof T, 'spec' | 'status'>;

/** The descriptor of a built-in kind: objects read as they are sent, written as the model. */
type Builtin<T extends KubeObject> = ResourceDescriptor<Sent<T>, UntypedFields, T>;

type Scope = ResourceDescriptor['scope'];
type Extra = Pick<ResourceDescriptor, 'shortNames' | 'subresources'>;

/** A descriptor of a built-in kind: `group` is `''` for the core group. */
function builtin(group: string, version: string, plural: string, kind: string, scope: Scope, extra: Extra = {}) {
  return { group, version, plural, singular: kind.toLowerCase(), kind, scope, ...extra } as const;
}

const STATUS = ['status'];
const SCALABLE = ['status', 'scale'];

// Core (`v1`).
export const Pods: Builtin<Pod> = builtin(
  '', 'v1', 'pods', 'Pod', 'Namespaced', { shortNames: ['po'], subresources: STATUS });
export const Services: Builtin<Service> = builtin(
  '', 'v1', 'services', 'Service', 'Namespaced', { shortNames: ['svc'], subresources: STATUS });
export const ConfigMaps: Builtin<ConfigMap> = builtin(
  '', 'v1', 'configmaps', 'ConfigMap', 'Namespaced', { shortNames: ['cm'] });
export const Secrets: Builtin<Secret> = builtin('', 'v1', 'secrets', 'Secret', 'Namespaced');
export const ServiceAccounts: Builtin<ServiceAccount> = builtin(
  '', 'v1', 'serviceaccounts', 'ServiceAccount', 'Namespaced', { shortNames: ['sa'] });
export const PersistentVolumeClaims: Builtin<PersistentVolumeClaim> = builtin(
  '', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', 'Namespaced',
  { shortNames: ['pvc'], subresources: STATUS });
export const PersistentVolumes: Builtin<PersistentVolume> = builtin(
  '', 'v1', 'persistentvolumes', 'PersistentVolume', 'Cluster', { shortNames: ['pv'], subresources: STATUS });
export const Namespaces: Builtin<Namespace> = builtin(
  '', 'v1', 'namespaces', 'Namespace', 'Cluster', { shortNames: ['ns'], subresources: ['status', 'finalize'] });
export const Nodes: Builtin<Node> = builtin(
  '', 'v1', 'nodes', 'Node', 'Cluster', { shortNames: ['no'], subresources: STATUS });
export const Events: Builtin<Event> = builtin(
  '', 'v1', 'events', 'Event', 'Namespaced', { shortNames: ['ev'] });

// Workloads.
export const Deployments: Builtin<Deployment> = builtin(
  'apps', 'v1', 'deployments', 'Deployment', 'Namespaced', { shortNames: ['deploy'], subresources: SCALABLE });
export const StatefulSets: Builtin<StatefulSet> = builtin(
  'apps', 'v1', 'statefulsets', 'StatefulSet', 'Namespaced', { shortNames: ['sts'], subresources: SCALABLE });
export const DaemonSets: Builtin<DaemonSet> = builtin(
  'apps', 'v1', 'daemonsets', 'DaemonSet', 'Namespaced', { shortNames: ['ds'], subresources: STATUS });
export const ReplicaSets: Builtin<ReplicaSet> = builtin(
  'apps', 'v1', 'replicasets', 'ReplicaSet', 'Namespaced', { shortNames: ['rs'], subresources: SCALABLE });
export const Jobs: Builtin<Job> = builtin(
  'batch', 'v1', 'jobs', 'Job', 'Namespaced', { subresources: STATUS });
export const CronJobs: Builtin<CronJob> = builtin(
  'batch', 'v1', 'cronjobs', 'CronJob', 'Namespaced', { shortNames: ['cj'], subresources: STATUS });
export const HorizontalPodAutoscalers: Builtin<HorizontalPodAutoscaler> = builtin(
  'autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', 'Namespaced',
  { shortNames: ['hpa'], subresources: STATUS });
export const PodDisruptionBudgets: Builtin<PodDisruptionBudget> = builtin(
  'policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', 'Namespaced',
  { shortNames: ['pdb'], subresources: STATUS });

// Access control.
const RBAC = 'rbac.authorization.k8s.io';
export const Roles: Builtin<Role> = builtin(RBAC, 'v1', 'roles', 'Role', 'Namespaced');
export const RoleBindings: Builtin<RoleBinding> = builtin(
  RBAC, 'v1', 'rolebindings', 'RoleBinding', 'Namespaced');
export const ClusterRoles: Builtin<ClusterRole> = builtin(
  RBAC, 'v1', 'clusterroles', 'ClusterRole', 'Cluster');
export const ClusterRoleBindings: Builtin<ClusterRoleBinding> = builtin(
  RBAC, 'v1', 'clusterrolebindings', 'ClusterRoleBinding', 'Cluster');

// Networking, storage, coordination, extensions.
export const Ingresses: Builtin<Ingress> = builtin(
  'networking.k8s.io', 'v1', 'ingresses', 'Ingress', 'Namespaced', { shortNames: ['ing'], subresources: STATUS });
export const NetworkPolicies: Builtin<NetworkPolicy> = builtin(
  'networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', 'Namespaced', { shortNames: ['netpol'] });
export const StorageClasses: Builtin<StorageClass> = builtin(
  'storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', 'Cluster', { shortNames: ['sc'] });
export const Leases: Builtin<Lease> = builtin('coordination.k8s.io', 'v1', 'leases', 'Lease', 'Namespaced');
export const CustomResourceDefinitions: Builtin<CustomResourceDefinition> = builtin(
  'apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', 'Cluster',
  { shortNames: ['crd', 'crds'], subresources: STATUS },
);
