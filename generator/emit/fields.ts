/**
 * A kind's field map for `on.field` and field filters: every dotted path through objects,
 * mapped to the read type of its value. Paths stop at arrays and maps (typed as whole values),
 * as Kopf's field paths do; an object that keeps unknown fields gets its path and a
 * `path.${string}` pattern for what is below it. Only the object's own `metadata` is expanded
 * into its fields; an embedded resource's metadata is one value. Keys containing a dot cannot be told apart in
 * a dotted path, so they (and what is below them) are left out.
 */
import type { ObjectNode, SchemaNode } from '../model/model.ts';
import type { TypePrinter } from './printer.ts';
import { stringLiteral } from './syntax.ts';

/** ObjectMeta fields worth watching, with their value types (names from kopf). */
const METADATA_FIELDS: readonly [string, string][] = [
  ['name', 'string'], ['generateName', 'string'], ['namespace', 'string'], ['uid', 'string'],
  ['resourceVersion', 'string'], ['generation', 'number'], ['creationTimestamp', 'string'],
  ['deletionTimestamp', 'string'], ['deletionGracePeriodSeconds', 'number'],
  ['labels', '{ [key: string]: string }'], ['annotations', '{ [key: string]: string }'],
  ['finalizers', 'string[]'], ['ownerReferences', 'OwnerReference[]'],
];

export interface FieldEntry {
  /** A literal path, or a `${string}` pattern below an open object. */
  readonly key: string;
  readonly pattern: boolean;
  readonly type: string;
}

export function fieldEntries(
  root: ObjectNode,
  printer: TypePrinter,
  extraRoot: readonly [string, string][],
  ownName: (property: string) => string | undefined,
): FieldEntry[] {
  const entries: FieldEntry[] = [];
  const visit = (path: string, node: SchemaNode): void => {
    const own = ownName(path);
    entries.push(
      { key: path, pattern: false, type: own ? (node.nullable ? `${own} | null` : own) : printer.expr(node, 'read') }
    );
    if (node.type === 'metadata' && path === 'metadata') {
      for (const [name, type] of METADATA_FIELDS) {
        entries.push(
          {
            key: `${path}.${name}`,
            pattern: false,
            type: type === 'OwnerReference[]' ? `${printer.imports.use('OwnerReference')}[]` : type,
          }
        );
      }
      return;
    }
    if (node.type === 'json') {
      entries.push({ key: path, pattern: true, type: 'unknown' });
      return;
    }
    if (node.type !== 'object') return;
    for (const p of node.properties) if (!p.name.includes('.')) visit(`${path}.${p.name}`, p.node);
    if (node.preserveUnknown) entries.push({ key: path, pattern: true, type: 'unknown' });
  };
  visit('metadata', { type: 'metadata', nullable: false, validations: [], constraints: [] });
  for (const p of root.properties) {
    if (p.name === 'apiVersion' || p.name === 'kind' || p.name === 'metadata' || p.name.includes('.')) continue;
    visit(p.name, p.node);
  }
  for (const [name, type] of extraRoot) {
    entries.push({ key: name, pattern: false, type });
    entries.push({ key: name, pattern: true, type: 'unknown' });
  }
  return entries;
}

export function fieldsDeclaration(name: string, entries: readonly FieldEntry[]): string {
  let out = `export type ${name} = {\n`;
  for (const e of entries) {
    out += e.pattern
      ? `  [path: \`${templateText(e.key)}.\${string}\`]: ${e.type};\n`
      : `  ${stringLiteral(e.key)}: ${e.type};\n`;
  }
  return `${out}};\n`;
}

/** A path inside a template literal type: backticks, `${` and backslashes escaped. */
function templateText(path: string): string {
  return path.replace(/[`\\]/g, (c) => `\\${c}`).replace(/\$\{/g, '\\${');
}
