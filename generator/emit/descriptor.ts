/**
 * A kind's descriptor: the value handlers and the API client are given (`on.create(Widget, …)`),
 * sharing its name with the object type. Its type parameters carry the object type and the
 * field map into handlers, and the input type into the client's `create` and `replace`.
 */
import type { ResourceModel, VersionModel } from '../model/model.ts';
import { jsdoc, propertyKey, stringLiteral } from './syntax.ts';
import type { KindNames } from './typegraph.ts';

export function descriptorDeclaration(
  resource: ResourceModel,
  version: VersionModel,
  names: KindNames,
  descriptorType: string,
): string {
  const lines = [
    `group: ${stringLiteral(resource.group)},`,
    `version: ${stringLiteral(version.name)},`,
    `plural: ${stringLiteral(resource.plural)},`,
    `singular: ${stringLiteral(resource.singular)},`,
    `kind: ${stringLiteral(resource.kind)},`,
    `scope: ${stringLiteral(resource.scope)},`,
    `shortNames: ${list(resource.shortNames)},`,
    `categories: ${list(resource.categories)},`,
    `subresources: ${list(version.subresources)},`,
  ];
  if (version.printerColumns.length) {
    lines.push('printerColumns: [');
    for (const c of version.printerColumns) {
      const fields: [string, string | number | undefined][] = [
        ['name', c.name],
        ['type', c.type],
        ['jsonPath', c.jsonPath],
        ['description', c.description],
        ['format', c.format],
        ['priority', c.priority],
      ];
      const parts = fields.filter(([, v]) => v !== undefined).map(
        ([k, v]) => `${propertyKey(k)}: ${typeof v === 'number' ? v : stringLiteral(v!)}`
      );
      lines.push(`  { ${parts.join(', ')} },`);
    }
    lines.push('],');
  } else {
    lines.push('printerColumns: [],');
  }
  const doc: string[] = [
    `${resource.kind} (${resource.plural}.${resource.group}/${version.name}, ${resource.scope.toLowerCase()}): the ` +
      `resource for handlers and the API client.`
  ];
  if (version.scale) {
    const s = version.scale;
    doc.push(
      `Scale subresource: replicas at \`${s.specReplicasPath}\` (spec) and \`${s.statusReplicasPath}\` ` +
        `(status)${s.labelSelectorPath ? `, selector at \`${s.labelSelectorPath}\`` : ''}.`
    );
  }
  if (version.selectableFields.length)
    doc.push(`Selectable fields: ${version.selectableFields.map((f) => `\`${f}\``).join(', ')}.`);
  const tags = deprecationTags(resource, version);
  return `${jsdoc('', doc, tags)}export const ${names.type}: ${descriptorType}<${names.type}, ${names.fields}, ` +
    `${names.input}> = {\n${lines.map((l) => `  ${l}`).join('\n')}\n};\n`;
}

export function deprecationTags(resource: ResourceModel, version: VersionModel): string[] {
  if (!version.deprecated) return [];
  return [
    `@deprecated ${version.deprecationWarning ?? `${resource.group}/${version.name} ${resource.kind} is deprecated`}`
  ];
}

function list(values: readonly string[]): string {
  return `[${values.map(stringLiteral).join(', ')}]`;
}
