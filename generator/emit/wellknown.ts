/**
 * The well-known Kubernetes shapes that `kopf` exports (runtime/structs/kubetypes.ts), as the
 * schemas controller-gen writes for them. A schema node is typed with one of these only when
 * its shape (types, required, defaults, nullability, enums) is the same; descriptions and value
 * limits do not count. test/generator checks that these schemas and kubetypes.ts agree.
 */
import type { Json } from '../input/json.ts';

const string = { type: 'string' };
const quantity = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: String.raw`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`, // lint-ignore: a String.raw pattern cannot wrap
  'x-kubernetes-int-or-string': true,
};

/** Name in `kopf` → its schema. Order matters only for reading. */
export const WELL_KNOWN_SCHEMAS: { readonly [name: string]: Json } = {
  EmbeddedResource: {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  },
  Condition: {
    type: 'object',
    required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
    properties: {
      lastTransitionTime: { type: 'string', format: 'date-time' },
      message: string,
      observedGeneration: { type: 'integer', format: 'int64' },
      reason: string,
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      type: string,
    },
  },
  LabelSelector: {
    type: 'object',
    properties: {
      matchExpressions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['key', 'operator'],
          properties: { key: string, operator: string, values: { type: 'array', items: string } },
        },
      },
      matchLabels: { type: 'object', additionalProperties: string },
    },
  },
  ResourceRequirements: {
    type: 'object',
    properties: {
      claims: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: string, request: string } },
      },
      limits: { type: 'object', additionalProperties: quantity },
      requests: { type: 'object', additionalProperties: quantity },
    },
  },
  ObjectReference: {
    type: 'object',
    properties: {
      apiVersion: string,
      fieldPath: string,
      kind: string,
      name: string,
      namespace: string,
      resourceVersion: string,
      uid: string,
    },
  },
  LocalObjectReference: { type: 'object', properties: { name: string } },
  Toleration: {
    type: 'object',
    properties: {
      effect: string,
      key: string,
      operator: string,
      tolerationSeconds: { type: 'integer', format: 'int64' },
      value: string,
    },
  },
};
