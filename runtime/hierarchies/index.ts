/**
 * Hierarchies of objects: an owner and the children its handlers create (Kopf's hierarchy helpers).
 */
export { adopt, type Adopted, type AdoptOptions } from './adoption.ts';
export { label, type LabelOptions } from './labels.ts';
export { adjustNamespace, harmonizeNaming, type NamespaceOptions, type NamingOptions } from './naming.ts';
export {
  appendOwnerReference, buildOwnerReference, removeOwnerReference, type Owner, type OwnerReferenceOptions,
} from './owners.ts';
