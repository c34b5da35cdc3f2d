/**
 * Conversion stubs: for a CRD with several served versions, one user-owned file
 * `<conversionsDir>/<group>/<plural>.ts` with an `on.convert` per version other than the hub,
 * written when absent, by the handler stubs' rule. A field the same in name and schema in both
 * versions is copied; every other field is left as a name that is declared nowhere
 * (`TODO_up_spec_replicas`), so that the project fails `tsc` until the user writes it: no field
 * is ever dropped in silence. An existing file is the user's: the versions it names no converter
 * for are reported, never added.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ObjectNode, Property, ResourceModel, SchemaNode, VersionModel } from '../model/model.ts';
import { isIdentifier } from '../model/identifiers.ts';
import { generatedIndexPath, generatedModulePath, handlerFilePath, relativeSpecifier } from './layout.ts';

export type ConversionResource =
  Pick<ResourceModel, 'name' | 'group' | 'kind' | 'typeName' | 'plural' | 'storageVersion'> & {
  readonly versions: readonly Pick<VersionModel, 'name' | 'served' | 'schema'>[];
};

export interface ConversionStubsOptions {
  /** The handler stubs' folder: the conversion files go to the folder `conversions` beside it. */
  readonly stubsDir: string;
  readonly outDir: string;
  /** The hub's version: the storage version unless given (`kopf-gen --hub`). */
  readonly hub?: string;
}

export interface ConversionStubsPlan {
  readonly writes: readonly { readonly file: string; readonly text: string; readonly create: true }[];
  readonly created: readonly string[];
  readonly unchanged: readonly string[];
  /** What is worth a look: versions an existing file has no converter for; a hub that is not a version. */
  readonly notes: readonly string[];
}

/** `<stubsDir>/../conversions`: beside the handler stubs. */
export function conversionsDirOf(stubsDir: string): string {
  return join(dirname(resolve(stubsDir)), 'conversions');
}

export function planConversionStubs(
  resources: readonly ConversionResource[], options: ConversionStubsOptions,
): ConversionStubsPlan {
  const dir = conversionsDirOf(options.stubsDir);
  const plan = { writes: [] as ConversionStubsPlan['writes'][number][], created: [] as string[],
    unchanged: [] as string[], notes: [] as string[] };
  for (const resource of resources) {
    const served = resource.versions.filter((v) => v.served);
    if (served.length < 2) continue;
    const hubName = options.hub ?? resource.storageVersion;
    const hub = served.find((v) => v.name === hubName);
    if (!hub) {
      plan.notes.push(`${resource.name}: the hub ${hubName} is not a served version; no conversion stub.`);
      continue;
    }
    const spokes = served.filter((v) => v !== hub);
    const file = handlerFilePath(dir, resource);
    if (existsSync(file)) {
      plan.unchanged.push(file);
      const text = readFileSync(file, 'utf8');
      const lacking = spokes.filter((v) => !text.includes(`${alias(v.name)}.${resource.typeName}`));
      if (lacking.length) {
        const versions = lacking.map((v) => v.name).join(', ');
        plan.notes.push(`${file} has no converters (on.convert) of ${resource.name} ${versions}: add them by hand.`);
      }
      continue;
    }
    plan.writes.push({ file, text: conversionFile(resource, hub, spokes, file, options.outDir), create: true });
    plan.created.push(file);
  }
  return plan;
}

function alias(version: string): string {
  return version.replace(/\W/g, '_');
}

function conversionFile(
  resource: ConversionResource, hub: ConversionResource['versions'][number],
  spokes: readonly ConversionResource['versions'][number][], file: string, outDir: string,
): string {
  const { typeName, group } = resource;
  const hubModule = hub.name === resource.storageVersion
    ? generatedIndexPath(outDir) : generatedModulePath(outDir, group, hub.name);
  const imports = [
    "import { on } from 'kopf';",
    `import { ${typeName} } from '${relativeSpecifier(file, hubModule)}';`,
    ...spokes.map((v) =>
      `import * as ${alias(v.name)} from '${relativeSpecifier(file, generatedModulePath(outDir, group, v.name))}';`),
  ];
  const converters = spokes.map((spoke) => [
    `// ${group} ${spoke.name} ⇄ ${hub.name} (the hub).`,
    `on.convert(${typeName}, ${alias(spoke.name)}.${typeName}, {`,
    direction('up', spoke.schema, hub.schema, `${group}/${hub.name}`),
    direction('down', hub.schema, spoke.schema, `${group}/${spoke.name}`),
    '});',
  ].join('\n'));
  const header = [
    '/**',
    ` * Converters of ${resource.name} between its versions, written once by kopf-gen and yours from`,
    ' * then on. Fields the same in both versions are copied; each `TODO_…` is a field to write (the',
    ' * type check fails until it is). Import this file from the operator (src/operator.ts). See',
    " * kopf's docs/versions.md.",
    ' */',
  ];
  return `${[...header, ...imports, '', converters.join('\n\n')].join('\n')}\n`;
}

/**
 * One converter: the source's fields taken out of the object; each of the target's fields copied
 * where the source has it alike, left to write where not. A source field the target lacks is not
 * written: the target cannot hold it (and the runtime keeps it for the way back).
 */
function direction(name: 'up' | 'down', from: SchemaNode, to: SchemaNode, apiVersion: string): string {
  const source = propertiesOf(from);
  const taken = [...source.keys()].filter((key) => !SKIPPED.has(key));
  const pattern = [...taken.map((key) => `${keyOf(key)}: ${local(key)}`), '...object'].join(', ');
  const lines = [`  ${name}: ({ ${pattern} }) => ({`, '    ...object,', `    apiVersion: '${apiVersion}',`];
  for (const [key, property] of propertiesOf(to)) {
    if (SKIPPED.has(key)) continue;
    lines.push(...fieldLines(name, [key], source.get(key)?.node, property.node, local(key), '    '));
  }
  lines.push('  }),');
  return lines.join('\n');
}

/** The apiVersion, kind and metadata are the framework's: the rest of the object is spread as it is. */
const SKIPPED = new Set(['apiVersion', 'kind', 'metadata']);

function fieldLines(
  direction: string, path: readonly string[], from: SchemaNode | undefined, to: SchemaNode, value: string,
  indent: string,
): string[] {
  const key = keyOf(path[path.length - 1]!);
  if (from && sameSchema(from, to)) return [`${indent}${key}: ${value},`];
  if (from?.type === 'object' && to.type === 'object' && path.length === 1) {
    const sources = propertiesOf(from);
    const lines = [`${indent}${key}: ${value} === undefined ? undefined : {`];
    for (const [name, property] of propertiesOf(to)) {
      const inner = `${value}.${access(name)}`;
      const own = sources.get(name)?.node;
      lines.push(...fieldLines(direction, [...path, name], own, property.node, inner, `${indent}  `));
    }
    lines.push(`${indent}},`);
    return lines;
  }
  const todo = `TODO_${direction}_${path.join('_').replace(/\W/g, '_')}`;
  return [`${indent}${key}: ${todo}, // ${path.join('.')}: ${from ? 'different in the versions' : 'new'}; write it`];
}

function propertiesOf(node: SchemaNode): Map<string, Property> {
  return new Map(node.type === 'object' ? (node as ObjectNode).properties.map((p) => [p.name, p]) : []);
}

/** The same shape and rules, documentation aside. */
function sameSchema(a: SchemaNode, b: SchemaNode): boolean {
  return JSON.stringify(a, withoutDescriptions) === JSON.stringify(b, withoutDescriptions);
}

function withoutDescriptions(key: string, value: unknown): unknown {
  return key === 'description' ? undefined : value;
}

function keyOf(name: string): string {
  return isIdentifier(name) ? name : JSON.stringify(name);
}

function access(name: string): string {
  return isIdentifier(name) ? name : `[${JSON.stringify(name)}]`;
}

function local(name: string): string {
  return `${name.replace(/\W/g, '_')}_`;
}
