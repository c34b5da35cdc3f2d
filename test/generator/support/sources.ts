/** In-memory CRD sources and small CRDs for generator tests. */
import { createHash } from 'node:crypto';
import type { SourceFile } from '../../../generator/input/files.ts';

export function source(display: string, text: string): SourceFile {
  return {
    absolute: `/virtual/${display}`,
    display,
    text,
    bytes: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex'),
  };
}

/** A v1 CRD document as YAML text, with the given schema (YAML, indented for `openAPIV3Schema:`). */
export function crdYaml(
  options: { group?: string; kind?: string; plural?: string; schema?: string; extra?: string } = {}
): string {
  const group = options.group ?? 'test.kopf.dev';
  const kind = options.kind ?? 'Thing';
  const plural = options.plural ?? `${kind.toLowerCase()}s`;
  const schema = options.schema ?? specSchema(`
                size: {type: integer}`);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {kind: ${kind}, plural: ${plural}}
  versions:
  - name: v1
    served: true
    storage: true${options.extra ?? ''}
    schema:
      openAPIV3Schema:${schema}
`;
}

/** A schema (as `crdYaml` takes it) of an object whose `spec` has the given properties (YAML, indented for them). */
export function specSchema(properties: string): string {
  return `
          type: object
          properties:
            spec:
              type: object
              properties:${properties}`;
}
