/**
 * The KopfExample resource (examples/crd.yaml) as the examples use it: the object type, its
 * field map and its descriptor, in the shape kopf-gen emits. Written by hand because the CRD's
 * spec and status preserve unknown fields: a generator can only type them as open objects, while
 * the examples know the fields that examples/obj.yaml sets.
 */
import type { KubeObject, ObjectMeta, ResourceDescriptor } from 'kopf';

export interface KopfExampleSpec {
  duration?: string;
  field?: string;
  items?: string[];
  /** How many children examples/18-reconcile keeps. */
  replicas?: number;
  [key: string]: unknown;
}

/** Handlers' results land here, under their ids (`status.create_fn.message`). */
export interface KopfExampleStatus {
  [handlerId: string]: unknown;
}

export interface KopfExample extends KubeObject {
  apiVersion?: 'kopf.dev/v1';
  kind?: 'KopfExample';
  metadata?: ObjectMeta;
  spec?: KopfExampleSpec;
  status?: KopfExampleStatus;
}

/** Dotted field paths and their value types; open, as the schema preserves unknown fields. */
export interface KopfExampleFields {
  [path: string]: unknown;
  'spec': KopfExampleSpec;
  'spec.duration': string;
  'spec.field': string;
  'spec.items': string[];
  'spec.replicas': number;
  'status': KopfExampleStatus;
}

export const KopfExample: ResourceDescriptor<KopfExample, KopfExampleFields> = {
  group: 'kopf.dev',
  version: 'v1',
  plural: 'kopfexamples',
  singular: 'kopfexample',
  kind: 'KopfExample',
  scope: 'Namespaced',
  shortNames: ['kopfexes', 'kopfex', 'kexes', 'kex'],
  subresources: ['status'],
  printerColumns: [
    {
      name: 'Duration',
      type: 'string',
      priority: 0,
      jsonPath: '.spec.duration',
      description: 'For how long the pod should sleep.',
    },
    {
      name: 'Children',
      type: 'string',
      priority: 0,
      jsonPath: '.status.create_fn.children',
      description: 'The children pods created.',
    },
    {
      name: 'Message',
      type: 'string',
      priority: 0,
      jsonPath: '.status.create_fn.message',
      description: 'As returned from the handler (sometimes).',
    },
  ],
};
