/**
 * kopf-gen's normalised model of the input: every CRD with its versions and their schemas,
 * after Kubernetes' own reading rules (int-or-string, preserve-unknown-fields, embedded
 * resources, defaults, nullability). Everything downstream (types, field maps, descriptors,
 * handler stubs) reads this model, never the raw YAML.
 */
import type { Diagnostic, PathSegment } from '../diagnostics/diagnostic.ts';
import type { Json } from '../input/json.ts';

export interface Model {
  /** Sorted by group, then kind. */
  readonly resources: readonly ResourceModel[];
  /** Warnings and notes about the input (errors are thrown as an InputError instead). */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The warning, among `diagnostics`, that a kind's status schema prunes what handlers store, by
   * the CRD's name: the pipeline keeps it only where the kind's handlers store something.
   */
  readonly pruning: ReadonlyMap<string, Diagnostic>;
}

export interface SourceRef {
  /** The input file as the user named it. */
  readonly file: string;
  /** 1-based document index in the file. */
  readonly document: number;
  /** Where the CRD is in the document: `[]`, or `['items', 3]` inside a `kind: List`. */
  readonly path: readonly PathSegment[];
}

export type Scope = 'Namespaced' | 'Cluster';

export interface ResourceModel {
  /** `<plural>.<group>`, the CRD's own name. */
  readonly name: string;
  readonly group: string;
  /** The kind as the API writes it in objects. */
  readonly kind: string;
  /** The exported name of the kind's type and descriptor: the kind, made an identifier if it is not one. */
  readonly typeName: string;
  readonly plural: string;
  /** As the API server defaults it: the lower-cased kind when the CRD does not say. */
  readonly singular: string;
  readonly listKind: string;
  readonly scope: Scope;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly source: SourceRef;
  /** sha256 of the CRD document's canonical JSON: changes when, and only when, the definition does. */
  readonly hash: string;
  /** Every version, highest Kubernetes version priority first (v2 > v1 > v1beta2 > v1alpha1 > others). */
  readonly versions: readonly VersionModel[];
  readonly storageVersion: string;
  /**
   * The version `<out>/index.ts` exports and handler stubs import: the storage version when it
   * is served, else the served version of highest priority.
   */
  readonly preferredVersion: string;
}

export interface VersionModel {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly schema: ObjectNode;
  /** Subresources served: `status`, `scale`. */
  readonly subresources: readonly string[];
  readonly scale?: ScaleModel;
  readonly printerColumns: readonly PrinterColumnModel[];
  /** JSON paths usable as field selectors (`.spec.mode`). */
  readonly selectableFields: readonly string[];
  /** Where the schema is in the CRD document, for messages. */
  readonly path: readonly PathSegment[];
}

export interface ScaleModel {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export interface PrinterColumnModel {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

/** A CEL rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

export type SchemaNode = ObjectNode | MapNode | ArrayNode | ScalarNode | IntOrStringNode | JsonNode | MetadataNode;

/** What every node may carry besides its shape: documentation and value rules. */
export interface NodeInfo {
  /** `null` is a valid value (`nullable: true`). */
  readonly nullable: boolean;
  readonly description?: string;
  /** The API server fills this value in when the field is absent (so a read object always has it). */
  readonly default?: { readonly value: Json };
  readonly format?: string;
  readonly pattern?: string;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
  readonly validations: readonly ValidationRule[];
  /** oneOf/anyOf/allOf/not rules that types cannot carry, in words (`exactly one of: a, b`). */
  readonly constraints: readonly string[];
}

export interface Property {
  /** The key exactly as in the schema; never renamed. */
  readonly name: string;
  /** Listed in `required` (also through allOf). */
  readonly required: boolean;
  readonly node: SchemaNode;
}

/**
 * An object with known properties. `preserveUnknown` keeps other keys too; `embedded` is a
 * whole Kubernetes object (apiVersion, kind, metadata are added to its properties). With no
 * properties and no preserve, the API server prunes every key: the only value is `{}`.
 */
export interface ObjectNode extends NodeInfo {
  readonly type: 'object';
  readonly properties: readonly Property[];
  readonly preserveUnknown: boolean;
  readonly embedded: boolean;
}

/** `additionalProperties`: keys of every name, values of one schema. */
export interface MapNode extends NodeInfo {
  readonly type: 'map';
  readonly values: SchemaNode;
}

export interface ArrayNode extends NodeInfo {
  readonly type: 'array';
  readonly items: SchemaNode;
}

export interface ScalarNode extends NodeInfo {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  /** The allowed values, in schema order, `""` and case-twins kept. */
  readonly enum?: readonly Json[];
}

/** `x-kubernetes-int-or-string`; a quantity when its pattern is Kubernetes' quantity pattern. */
export interface IntOrStringNode extends NodeInfo {
  readonly type: 'int-or-string';
  readonly quantity: boolean;
}

/** Any JSON value: type-less with `x-kubernetes-preserve-unknown-fields`, or `additionalProperties: true`. */
export interface JsonNode extends NodeInfo {
  readonly type: 'json';
}

/** A Kubernetes ObjectMeta: the root `metadata`, and `metadata` of embedded resources. */
export interface MetadataNode extends NodeInfo {
  readonly type: 'metadata';
}

/** The generated module of a group and version, relative to the output folder. */
export function modulePath(group: string, version: string): string {
  return `${group}/${version}.ts`;
}
