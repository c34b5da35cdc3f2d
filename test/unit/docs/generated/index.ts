/**
 * What `./generated/index.ts` stands for in the documentation's code blocks: the module kopf-gen
 * writes from CRDs. `KopfExample` is the examples' resource; `Widget` is a small kind in the
 * shape kopf-gen emits (object type, field map, descriptor under one name); `Gadget` is
 * examples/19-versions' storage version (its v1alpha1 is beside this file, in example.com/).
 */
import type { ObjectMeta, ResourceDescriptor, KubeObject } from 'kopf';

export { KopfExample, type KopfExampleFields, type KopfExampleSpec, type KopfExampleStatus } from '../../../../examples/kopfexample.ts';
export { Gadget } from '../../../../examples/19-versions/generated/index.ts';

export interface WidgetSpec {
  replicas: number;
  image?: string;
  /** The scaffold's field (create-kopf-operator), as the README's tour uses it. */
  greeting: string;
}

export interface WidgetStatus {
  phase?: 'Pending' | 'Ready';
  [key: string]: unknown;
}

export interface Widget extends KubeObject {
  apiVersion?: 'example.com/v1';
  kind?: 'Widget';
  metadata?: ObjectMeta;
  /** Required at the root of its CRD, as in the scaffold's: handlers read its required fields as present. */
  spec: WidgetSpec;
  status?: WidgetStatus;
}

export type WidgetFields = {
  'metadata': ObjectMeta;
  'spec': WidgetSpec;
  'spec.replicas': number;
  'spec.image': string;
  'spec.greeting': string;
  'status': WidgetStatus;
  'status.phase': 'Pending' | 'Ready';
};

export const Widget: ResourceDescriptor<Widget, WidgetFields> = {
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  singular: 'widget',
  kind: 'Widget',
  scope: 'Namespaced',
  subresources: ['status'],
};
