/**
 * JSDoc for generated declarations, from a schema node: its description, and in tags what the
 * type itself cannot say (default, format, list semantics, CEL rules, oneOf/anyOf rules,
 * deprecation).
 */
import type { NodeInfo } from '../model/model.ts';
import { jsdoc } from './syntax.ts';

const DEPRECATED_LINE = /^\s*deprecated:\s*(.*)$/im;
const DEPRECATED_START = /^\s*deprecated\b[.:,]?\s*(.*)$/i;

/** A property's documentation. */
export function propertyDoc(indent: string, info: NodeInfo): string {
  const tags: string[] = [];
  if (info.default !== undefined) tags.push(`@default ${JSON.stringify(info.default.value)}`);
  if (info.format)
    tags.push(
      `@format ${info.format}${info.format === 'int64' ? ' (values beyond 2^53 lose precision as JavaScript numbers)' : ''}` // lint-ignore: to wrap by hand once the generator work is merged
    );
  if (info.listType === 'map' || info.listType === 'set') tags.push(`@listType ${info.listType}`);
  if (info.listMapKeys?.length) tags.push(`@listMapKeys ${info.listMapKeys.join(', ')}`);
  if (info.mapType === 'granular') tags.push('@mapType granular');
  for (const c of info.constraints) tags.push(`@constraint ${c}`);
  for (const v of info.validations) tags.push(`@validation ${v.rule}${v.message ? ` (${v.message})` : ''}`);
  const deprecated = deprecation(info.description);
  if (deprecated !== undefined) tags.push(deprecated ? `@deprecated ${deprecated}` : '@deprecated');
  return jsdoc(indent, info.description ? [info.description] : [], tags);
}

/** A type's documentation: the description, and rules that apply to the whole object. */
export function typeDoc(info: NodeInfo, extra: readonly string[] = [], tags: readonly string[] = []): string {
  const all = [...tags];
  for (const c of info.constraints) all.push(`@constraint ${c}`);
  for (const v of info.validations) all.push(`@validation ${v.rule}${v.message ? ` (${v.message})` : ''}`);
  return jsdoc('', [...(info.description ? [info.description] : []), ...extra], all);
}

/**
 * The deprecation note of a description that says the field is deprecated (Go's convention:
 * a line starting with `Deprecated:`); `''` when it says nothing more; undefined when not deprecated.
 */
export function deprecation(description: string | undefined): string | undefined {
  if (!description) return undefined;
  const match = DEPRECATED_LINE.exec(description) ?? DEPRECATED_START.exec(description.split('\n')[0]!);
  if (!match) return undefined;
  return match[1]!.trim();
}
