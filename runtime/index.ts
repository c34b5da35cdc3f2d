/**
 * The public facade of `kopf`: everything an operator imports.
 */
export type {
  FieldMap, FieldsOf, JsonObject, JsonPrimitive, JsonValue, KubeObject, ManagedFieldsEntry,
  MergePatch, ObjectMeta, ObjectOf, OwnerReference, PrinterColumn, ResourceDescriptor, UntypedFields,
} from './structs/resources.ts';
export { apiVersionOf, resourceName, resourcePath } from './structs/resources.ts';
export * as builtins from './structs/builtins.ts';
export type * from './structs/kubetypes.ts';
