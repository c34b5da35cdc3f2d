/**
 * One CRD document to a ResourceModel: names, scope, and every version with its normalised
 * schema, subresources and printer columns. Checks what the API server would check and the
 * generator relies on, and reports problems with their JSON paths.
 */
import { createHash } from 'node:crypto';
import { shown } from '../diagnostics/diagnostic.ts';
import type { PathSegment } from '../diagnostics/diagnostic.ts';
import type { CrdDocument } from '../input/documents.ts';
import { canonicalJson, isJsonMap } from '../input/json.ts';
import type { Json, JsonMap } from '../input/json.ts';
import type { DocumentContext } from './document-context.ts';
import { MANIFEST_FILE } from '../paths.ts';
import { typeNameOf } from './identifiers.ts';
import { dns1035Problem, groupProblem, kindProblem } from './names.ts';
import { normaliseRoot } from './schema.ts';
import type { PrinterColumnModel, ResourceModel, ScaleModel, Scope, VersionModel } from './model.ts';
import { compareVersions } from './version-order.ts';

/** Files at the top of the output folder: a group (a folder there) of one of these names would clash. */
const OUTPUT_FILES = new Set(['index.ts', MANIFEST_FILE]);

export function readCrd(doc: CrdDocument, ctx: DocumentContext): ResourceModel | undefined {
  const at = (...segments: PathSegment[]): PathSegment[] => [...doc.path, ...segments];
  const spec = doc.value['spec'];
  if (!isJsonMap(spec)) {
    ctx.error(at('spec'), 'a CRD needs a `spec` mapping');
    return undefined;
  }
  const group = readName(spec, 'group', at('spec'), ctx, groupProblem);
  if (group !== undefined && OUTPUT_FILES.has(group)) {
    const clash = `a group named ${shown(group)} would be a folder where kopf-gen writes a file of that name`;
    ctx.error(at('spec', 'group'), clash);
  }
  const names = spec['names'];
  if (!isJsonMap(names)) {
    ctx.error(at('spec', 'names'), 'a CRD needs `spec.names`');
    return undefined;
  }
  const namesPath = at('spec', 'names');
  const kind = readName(names, 'kind', namesPath, ctx, kindProblem);
  const plural = readName(names, 'plural', namesPath, ctx, dns1035Problem);
  const singular = readName(names, 'singular', namesPath, ctx, dns1035Problem, 'optional');
  const listKind = readName(names, 'listKind', namesPath, ctx, kindProblem, 'optional');
  if (listKind !== undefined && listKind === kind) {
    ctx.error([...namesPath, 'listKind'], 'the kind and the list kind must differ');
  }
  if (kind !== undefined && names['listKind'] === undefined && kindProblem(`${kind}List`) !== undefined) {
    // The API server checks the list kind it makes of the kind: 60 characters and more make it too long.
    const tooLong = `the list kind made of it, ${shown(`${kind}List`)}, is longer than 63 characters; `
      + 'shorten the kind or give a `listKind`';
    ctx.error([...namesPath, 'kind'], tooLong);
  }
  const shortNames = nameList(names, 'shortNames', namesPath, ctx);
  const categories = nameList(names, 'categories', namesPath, ctx);
  const scope = spec['scope'];
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    ctx.error(at('spec', 'scope'), '`spec.scope` must be Namespaced or Cluster');
  }
  if (group === undefined || kind === undefined || plural === undefined) return undefined;

  const metadata = doc.value['metadata'];
  const declaredName = isJsonMap(metadata) ? metadata['name'] : undefined;
  if (declaredName !== `${plural}.${group}`) {
    const expected = JSON.stringify(`${plural}.${group}`);
    const found = typeof declaredName === 'string' ? shown(declaredName) : JSON.stringify(declaredName ?? null);
    ctx.error(at('metadata', 'name'), `the CRD must be named ${expected} (<plural>.<group>), not ${found}`);
  }

  const versions = readVersions(spec, at('spec', 'versions'), ctx);
  const storage = versions.filter((v) => v.storage);
  if (versions.length && storage.length !== 1) {
    ctx.error(at('spec', 'versions'), `exactly one version must have storage: true (found ${storage.length})`);
  }
  // Names become paths and code: no resource is made of a document the API server would refuse.
  if (ctx.failed || !storage.length) return undefined;
  const served = versions.filter((v) => v.served);
  const storageVersion = storage[0]!.name;
  const preferred = storage[0]!.served ? storageVersion : served[0]?.name ?? storageVersion;

  return {
    name: `${plural}.${group}`,
    group,
    kind,
    typeName: typeNameOf(kind),
    plural,
    singular: singular ?? kind.toLowerCase(),
    listKind: listKind ?? `${kind}List`,
    scope: scope as Scope,
    shortNames,
    categories,
    source: { file: doc.file, document: doc.document, path: doc.path },
    hash: createHash('sha256').update(canonicalJson(doc.value)).digest('hex'),
    versions,
    storageVersion,
    preferredVersion: preferred,
  };
}

function readVersions(spec: JsonMap, path: PathSegment[], ctx: DocumentContext): VersionModel[] {
  const list = spec['versions'];
  if (!Array.isArray(list) || !list.length) {
    ctx.error(path, 'a CRD needs a non-empty `spec.versions` list');
    return [];
  }
  const seen = new Set<string>();
  const versions: VersionModel[] = [];
  list.forEach((raw, i) => {
    const version = readVersion(raw, [...path, i], ctx);
    if (!version) return;
    if (seen.has(version.name)) ctx.error([...path, i, 'name'], `version ${version.name} is defined twice`);
    seen.add(version.name);
    versions.push(version);
  });
  return versions.sort((a, b) => compareVersions(a.name, b.name));
}

function readVersion(raw: Json, at: PathSegment[], ctx: DocumentContext): VersionModel | undefined {
  if (!isJsonMap(raw)) {
    ctx.error(at, 'a version must be a mapping');
    return undefined;
  }
  const name = readName(raw, 'name', at, ctx, dns1035Problem);
  if (name === undefined) return undefined;
  // `<group>/index.ts` is kopf-gen's; a version cannot have that module name.
  if (name === 'index') ctx.error([...at, 'name'], 'a version named `index` is not supported by kopf-gen');
  const schema = raw['schema'];
  const openAPIV3Schema = isJsonMap(schema) ? schema['openAPIV3Schema'] : undefined;
  const schemaPath = [...at, 'schema', 'openAPIV3Schema'];
  if (openAPIV3Schema === undefined) {
    ctx.error(schemaPath, 'every version of an apiextensions.k8s.io/v1 CRD needs a schema');
    return undefined;
  }
  const subresources = isJsonMap(raw['subresources']) ? raw['subresources'] : undefined;
  const scale = subresources ? readScale(subresources['scale']) : undefined;
  return {
    name,
    served: raw['served'] === true,
    storage: raw['storage'] === true,
    deprecated: raw['deprecated'] === true,
    ...(typeof raw['deprecationWarning'] === 'string' ? { deprecationWarning: raw['deprecationWarning'] } : {}),
    schema: normaliseRoot(openAPIV3Schema, schemaPath, ctx),
    subresources: subresources
      ? ['status', 'scale'].filter((s) => subresources[s] !== undefined && subresources[s] !== null)
      : [],
    ...(scale ? { scale } : {}),
    printerColumns: readColumns(raw['additionalPrinterColumns'], [...at, 'additionalPrinterColumns'], ctx),
    selectableFields: Array.isArray(raw['selectableFields'])
      ? raw['selectableFields'].flatMap((f) => (
        isJsonMap(f) && typeof f['jsonPath'] === 'string' ? [f['jsonPath']] : []
      ))
      : [],
    path: schemaPath,
  };
}

function readScale(raw: Json | undefined): ScaleModel | undefined {
  if (!isJsonMap(raw)) return undefined;
  const spec = raw['specReplicasPath'];
  const status = raw['statusReplicasPath'];
  if (typeof spec !== 'string' || typeof status !== 'string') return undefined;
  const selector = raw['labelSelectorPath'];
  return {
    specReplicasPath: spec,
    statusReplicasPath: status,
    ...(typeof selector === 'string' ? { labelSelectorPath: selector } : {}),
  };
}

function readColumns(raw: Json | undefined, path: PathSegment[], ctx: DocumentContext): PrinterColumnModel[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    ctx.error(path, '`additionalPrinterColumns` must be a list');
    return [];
  }
  const columns: PrinterColumnModel[] = [];
  raw.forEach((item, i) => {
    if (
      !isJsonMap(item)
      || typeof item['name'] !== 'string'
      || typeof item['type'] !== 'string'
      || typeof item['jsonPath'] !== 'string'
    ) {
      ctx.error([...path, i], 'a printer column needs `name`, `type` and `jsonPath` strings');
      return;
    }
    columns.push({
      name: item['name'],
      type: item['type'],
      jsonPath: item['jsonPath'],
      ...(typeof item['description'] === 'string' ? { description: item['description'] } : {}),
      ...(typeof item['format'] === 'string' ? { format: item['format'] } : {}),
      ...(typeof item['priority'] === 'number' ? { priority: item['priority'] } : {}),
    });
  });
  return columns;
}

type NameCheck = (value: string) => string | undefined;

/**
 * A name of the CRD, checked; undefined (and an error) when it is invalid, or missing though required.
 * The API server defaults the optional ones when absent (singular, listKind).
 */
function readName(
  map: JsonMap,
  key: string,
  path: PathSegment[],
  ctx: DocumentContext,
  check: NameCheck,
  presence: 'required' | 'optional' = 'required',
): string | undefined {
  const value = map[key];
  const absent = value === undefined || value === null || value === '';
  if (absent && presence === 'optional') return undefined;
  if (typeof value !== 'string' || !value) {
    const wanted = presence === 'required' ? 'a non-empty string' : 'a string';
    ctx.error([...path, key], `\`${key}\` must be ${wanted}`);
    return undefined;
  }
  return checkedName(value, [...path, key], ctx, check);
}

/** Short names and categories: a list of DNS-1035 labels. */
function nameList(map: JsonMap, key: string, path: PathSegment[], ctx: DocumentContext): string[] {
  const value = map[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    ctx.error([...path, key], `\`${key}\` must be a list of names`);
    return [];
  }
  return value.flatMap((item, i) => {
    if (typeof item === 'string') return checkedName(item, [...path, key, i], ctx, dns1035Problem) ?? [];
    ctx.error([...path, key, i], 'must be a string');
    return [];
  });
}

function checkedName(value: string, path: PathSegment[], ctx: DocumentContext, check: NameCheck): string | undefined {
  const problem = check(value);
  if (problem === undefined) return value;
  ctx.error(path, problem);
  return undefined;
}
