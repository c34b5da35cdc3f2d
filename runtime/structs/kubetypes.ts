/**
 * Well-known Kubernetes shapes that CRD schemas repeat (controller-gen copies them from the
 * upstream Go types). kopf-gen's generated types refer to these instead of re-declaring them,
 * but only where a schema matches the shape exactly, so nothing is looser or stricter than the
 * API server. Each mirrors its upstream API type as the schema has it.
 */
import type { ObjectMeta } from './resources.ts';

/** `x-kubernetes-int-or-string`: a number or a string, e.g. a port `8080` or `'http'`, `'25%'`. */
export type IntOrString = number | string;

/**
 * A resource quantity (`resource.Quantity`): `2`, `'500m'`, `'1Gi'`, `'1.5e3'`. Strings match
 * `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
 */
export type Quantity = number | string;

/**
 * An object whose schema declares no fields and keeps none: the API server prunes every key,
 * so `{}` is its only value (e.g. marker options such as `archive: { none: {} }`).
 */
export type EmptyObject = { [key: string]: never };

/**
 * The members every JavaScript object has (`constructor`, `toString`, `valueOf`, …). A schema
 * field with one of these names reads as the member when the field is absent, so its type is
 * `T | ObjectPrototype['constructor']`: the union TypeScript needs to accept objects without it.
 */
export type ObjectPrototype = Object;

/** `x-kubernetes-embedded-resource`: a whole Kubernetes object inside another one. */
export interface EmbeddedResource {
  apiVersion: string;
  kind: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** `metav1.Condition`: the standard condition of an object's `status.conditions`. */
export interface Condition {
  /** Type of condition in CamelCase or in foo.example.com/CamelCase. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** The `.metadata.generation` that the condition was set based upon. */
  observedGeneration?: number;
  /** When the condition last changed from one status to another (RFC 3339). */
  lastTransitionTime: string;
  /** A programmatic identifier of the last transition's reason, in CamelCase. */
  reason: string;
  /** A human-readable message about the transition; may be empty. */
  message: string;
}

/** `metav1.LabelSelector`: the requirements are ANDed; empty selects everything. */
export interface LabelSelector {
  matchExpressions?: LabelSelectorRequirement[];
  matchLabels?: { [key: string]: string };
}

export interface LabelSelectorRequirement {
  key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator: string;
  values?: string[];
}

/** `corev1.ResourceRequirements`: compute resources of a container. */
export interface ResourceRequirements {
  /** Names of resources, defined in `spec.resourceClaims`, that this container uses. */
  claims?: ResourceClaim[];
  limits?: { [resource: string]: Quantity };
  requests?: { [resource: string]: Quantity };
}

export interface ResourceClaim {
  name: string;
  request?: string;
}

/** `corev1.ObjectReference`: a reference to an object, possibly a field of it. */
export interface ObjectReference {
  apiVersion?: string;
  fieldPath?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
}

/** `corev1.LocalObjectReference`: an object in the same namespace, by name. */
export interface LocalObjectReference {
  name?: string;
}

/** `corev1.Toleration`. */
export interface Toleration {
  effect?: string;
  key?: string;
  operator?: string;
  tolerationSeconds?: number;
  value?: string;
}
