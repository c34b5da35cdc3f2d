/**
 * What the runtime needs to know about a kind of Kubernetes object to serve it.
 *
 * The generator emits one descriptor per kind and version from CRDs; the runtime ships
 * descriptors for the built-in kinds; discovery produces them for strings like `'kex'`.
 * The type parameters carry the object's shapes into handlers and the API client, and are never
 * read at run time: `T` as the API server returns the object, `F` its field map, `I` what may be
 * written to create or replace it (without the fields that the API server fills in with defaults).
 */
export interface ResourceDescriptor<
  T extends KubeObject = KubeObject, F extends FieldMap = UntypedFields, I extends KubeObject = NoInfer<T>,
> {
  /** API group; `''` for the core group (`v1` pods, configmaps, …). */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular?: string;
  readonly kind: string;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Subresources served for this version, e.g. `['status', 'scale']`. */
  readonly subresources?: readonly string[];
  readonly printerColumns?: readonly PrinterColumn[];
  /** Phantom fields: the object type and its field map. Never set; only read by the type checker. */
  readonly __type?: T;
  readonly __fields?: F;
  /**
   * Phantom too: the input type. A method, whose parameter TypeScript compares both ways, so that
   * a descriptor still fits where only its read type is named (`ResourceDescriptor<T, F>`, whose
   * input is `T`): a read object is always a valid input, but not the other way round. That
   * default is `NoInfer<T>`, so that such a parameter infers `T` from the read type alone.
   */
  __input?(object: I): void;
}

/**
 * Dotted field paths of a resource mapped to the types of their values, e.g.
 * `{ 'spec': Spec; 'spec.replicas': number; … }`. The generator emits one per kind, so that
 * `on.field(r, fn, { field: 'spec.replicas' })` is checked and `old`/`new` are typed.
 */
export type FieldMap = { [path: string]: unknown };
/** The field map of a resource without a generated type: every path, values unknown. */
export type UntypedFields = { [path: string]: unknown };

/** The field map a descriptor stands for. */
export type FieldsOf<R> = R extends ResourceDescriptor<KubeObject, infer F> ? F : UntypedFields;

/**
 * A JSON merge patch (RFC 7386) of an object of type T: every field optional,
 * `null` removes a field.
 */
export type MergePatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { -readonly [K in keyof T]?: MergePatch<T[K]> | null }
    : T;

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

/** The object type a descriptor stands for. */
export type ObjectOf<R> = R extends ResourceDescriptor<infer T, FieldMap> ? T : KubeObject;

/** What is written to create or replace an object of a descriptor: defaulted fields optional. */
export type InputOf<R> = R extends ResourceDescriptor<KubeObject, FieldMap, infer I> ? I : KubeObject;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any Kubernetes object: the shape every resource type extends. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  // Arbitrary further fields (spec, status, data, …) of objects not described by a type.
  [key: string]: unknown;
}

/** `group/version` as Kubernetes writes it in `apiVersion` (`v1` for the core group). */
export function apiVersionOf(resource: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/** The URL path of a resource's collection, or of one object with a name. */
export function resourcePath(
  resource: Pick<ResourceDescriptor, 'group' | 'version' | 'plural' | 'scope'>,
  options: { namespace?: string | null; name?: string; subresource?: string } = {},
): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const ns = resource.scope === 'Namespaced' && options.namespace
    ? `/namespaces/${encodeURIComponent(options.namespace)}` : '';
  let path = `${base}${ns}/${resource.plural}`;
  if (options.name !== undefined) path += `/${encodeURIComponent(options.name)}`;
  if (options.subresource) path += `/${options.subresource}`;
  return path;
}

/** A stable human name for messages: `kopfexamples.kopf.dev/v1`. */
export function resourceName(resource: Pick<ResourceDescriptor, 'group' | 'version' | 'plural'>): string {
  return resource.group ? `${resource.plural}.${resource.group}/${resource.version}`
    : `${resource.plural}/${resource.version}`;
}
