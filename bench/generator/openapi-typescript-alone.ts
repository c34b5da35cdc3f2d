/**
 * The baseline: openapi-typescript on the CRDs' schemas with nothing Kubernetes-specific added.
 * Each CRD becomes one OpenAPI document whose components are its versions' `openAPIV3Schema`s,
 * printed to `<out>/<group>/<plural>.ts`.
 *
 *   node bench/generator/openapi-typescript-alone.ts <outDir> <crd.yaml>...
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3, SchemaObject } from 'openapi-typescript';
import { parseAllDocuments } from 'yaml';

interface Crd {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: { name: string; schema?: { openAPIV3Schema?: SchemaObject } }[];
  };
}

function isCrd(doc: unknown): doc is Crd {
  return typeof doc === 'object' && doc !== null && (doc as { kind?: unknown }).kind === 'CustomResourceDefinition';
}

function documentOf(crd: Crd): OpenAPI3 {
  const schemas: Record<string, SchemaObject> = {};
  for (const version of crd.spec.versions) {
    const schema = version.schema?.openAPIV3Schema;
    if (schema) schemas[`${crd.spec.names.kind}_${version.name}`] = schema;
  }
  return { openapi: '3.0.3', info: { title: crd.spec.names.plural, version: '0' }, paths: {}, components: { schemas } };
}

const [outDir, ...files] = process.argv.slice(2);
for (const file of files) {
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const crd: unknown = doc.toJS();
    if (!isCrd(crd)) continue;
    const ast = await openapiTS(documentOf(crd), { silent: true });
    const dir = join(outDir, crd.spec.group);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${crd.spec.names.plural}.ts`), astToString(ast));
  }
}
