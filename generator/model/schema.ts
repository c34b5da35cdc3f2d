/**
 * An `openAPIV3Schema` to the model's schema nodes, the way the API server reads it:
 * int-or-string (quantity when the pattern says so), preserve-unknown-fields at any depth,
 * embedded resources, maps, nullable, defaults. Schemas the API server would reject (a `$ref`,
 * tuple `items`, properties next to additionalProperties, unknown types) are errors with the
 * JSON path; type-less values it would not accept in a structural schema are warnings.
 */
import type { PathSegment } from '../diagnostics/diagnostic.ts';
import { hasKey, isJsonMap } from '../input/json.ts';
import type { Json, JsonMap } from '../input/json.ts';
import type { DocumentContext } from './document-context.ts';
import { JUNCTORS, readJunctors } from './junctors.ts';
import type { NodeInfo, ObjectNode, Property, SchemaNode, ValidationRule } from './model.ts';

/** Kubernetes' resource.Quantity pattern, as controller-gen writes it. */
const QUANTITY_PATTERN =
  String.raw`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`; // lint-ignore: a String.raw pattern cannot wrap

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/** Schema keywords the API server refuses in CRDs. */
const FORBIDDEN: { [keyword: string]: string } = {
  '$ref': '`$ref` is not allowed in CRD schemas (Kubernetes rejects references; inline the schema)',
  '$schema': '`$schema` is not allowed in CRD schemas',
  'definitions': '`definitions` is not allowed in CRD schemas',
  'dependencies': '`dependencies` is not allowed in CRD schemas',
  'id': '`id` is not allowed in CRD schemas',
  'patternProperties': '`patternProperties` is not allowed in CRD schemas',
  'additionalItems': '`additionalItems` is not allowed in CRD schemas',
};

const KNOWN = new Set([
  'type', 'format', 'title', 'description', 'default', 'example', 'externalDocs', 'nullable', 'enum',
  'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'items', 'properties',
  'additionalProperties', 'allOf', 'oneOf', 'anyOf', 'not',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);

/** The root of a version's schema: an object whose `metadata` is always a Kubernetes ObjectMeta. */
export function normaliseRoot(raw: Json, path: readonly PathSegment[], ctx: DocumentContext): ObjectNode {
  const node = normalise(raw, path, ctx);
  if (node.type !== 'object') {
    ctx.error(path, 'the root of a CRD schema must be `type: object`');
    return emptyObject();
  }
  return withMetadata(node, false);
}

export function normalise(raw: Json, path: readonly PathSegment[], ctx: DocumentContext): SchemaNode {
  if (!isJsonMap(raw)) {
    ctx.error(path, 'a schema must be a mapping');
    return { type: 'json', ...emptyInfo() };
  }
  checkKeywords(raw, path, ctx);
  const intOrString = raw['x-kubernetes-int-or-string'] === true;
  const preserve = raw['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = raw['x-kubernetes-embedded-resource'] === true;
  const junctors = readJunctors(raw, intOrString);
  const info = readInfo(raw, path, ctx, junctors.constraints);
  const type = raw['type'];

  if (intOrString) return { type: 'int-or-string', quantity: info.pattern === QUANTITY_PATTERN, ...info };
  if (type === undefined) {
    if (embedded || hasKey(raw, 'properties')) return object(raw, path, ctx, info, junctors.required);
    if (!preserve && hasKey(raw, 'additionalProperties')) return object(raw, path, ctx, info, junctors.required);
    if (!preserve)
      ctx.warn(
        path,
        'a schema without `type` is only valid with x-kubernetes-preserve-unknown-fields or ' +
          'x-kubernetes-int-or-string; typed as JsonValue (any JSON)',
      );
    return { type: 'json', ...info };
  }
  if (type === 'object') return object(raw, path, ctx, info, junctors.required);
  if (type === 'array') return array(raw, path, ctx, info);
  if (typeof type === 'string' && SCALAR_TYPES.has(type)) {
    const scalarType = type as 'string' | 'integer' | 'number' | 'boolean';
    const values = raw['enum'];
    if (values !== undefined && !Array.isArray(values)) ctx.error([...path, 'enum'], '`enum` must be a list');
    return Array.isArray(values) ? { type: scalarType, enum: values, ...info } : { type: scalarType, ...info };
  }
  ctx.error(
    [...path, 'type'],
    `unknown type ${JSON.stringify(type)}; expected object, array, string, integer, number or boolean`,
  );
  return { type: 'json', ...info };
}

function object(
  raw: JsonMap,
  path: readonly PathSegment[],
  ctx: DocumentContext,
  info: NodeInfo,
  extraRequired: readonly string[],
): SchemaNode {
  const preserve = raw['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = raw['x-kubernetes-embedded-resource'] === true;
  const props = raw['properties'];
  const additional = raw['additionalProperties'];
  if (props !== undefined && !isJsonMap(props)) ctx.error([...path, 'properties'], '`properties` must be a mapping');
  if (isJsonMap(props) && additional !== undefined && additional !== false) {
    ctx.error(
      [...path, 'additionalProperties'],
      '`properties` and `additionalProperties` cannot be used together (Kubernetes rejects the schema)',
    );
  }
  if (!isJsonMap(props) && additional !== undefined && additional !== false && !embedded) {
    const values: SchemaNode = additional === true ? { type: 'json', ...emptyInfo() }
      : isJsonMap(additional) && !Object.keys(additional).some((k) => k !== 'description')
        ? { type: 'json', ...emptyInfo() }
        : normalise(additional, [...path, 'additionalProperties'], ctx);
    return { type: 'map', values, ...info };
  }
  const required = new Set(stringList(raw['required'], [...path, 'required'], ctx));
  for (const name of extraRequired) required.add(name);
  const properties: Property[] = [];
  if (isJsonMap(props)) {
    for (const name of Object.keys(props)) {
      const node = normalise(props[name]!, [...path, 'properties', name], ctx);
      properties.push({ name, required: required.has(name), node });
    }
  }
  const result: ObjectNode = { type: 'object', properties, preserveUnknown: preserve, embedded, ...info };
  return embedded ? withMetadata(result, true) : result;
}

/**
 * `metadata` as ObjectMeta (the API server ignores a root metadata schema beyond name rules);
 * for an embedded resource also apiVersion and kind, which the API server requires there.
 */
function withMetadata(node: ObjectNode, embedded: boolean): ObjectNode {
  const byName = new Map(node.properties.map((p) => [p.name, p]));
  const properties: Property[] = [];
  if (embedded) {
    for (const name of ['apiVersion', 'kind']) {
      const declared = byName.get(name);
      properties.push({ name, required: true, node: declared?.node ?? { type: 'string', ...emptyInfo() } });
    }
  }
  const metadata = byName.get('metadata');
  const metaInfo = metadata ? infoOf(metadata.node) : emptyInfo();
  if (metadata || embedded)
    properties.push(
      { name: 'metadata', required: metadata?.required ?? false, node: { ...metaInfo, type: 'metadata' } }
    );
  const placed = new Set(properties.map((p) => p.name));
  for (const p of node.properties) if (!placed.has(p.name)) properties.push(p);
  // Keep the schema's own order where it had these fields.
  const order = node.properties.map((p) => p.name);
  properties.sort((a, b) => rank(order, a.name) - rank(order, b.name));
  return { ...node, properties };
}

function rank(order: readonly string[], name: string): number {
  const i = order.indexOf(name);
  return i === -1 ? -1 : i;
}

function array(raw: JsonMap, path: readonly PathSegment[], ctx: DocumentContext, info: NodeInfo): SchemaNode {
  const items = raw['items'];
  if (Array.isArray(items)) {
    ctx.error([...path, 'items'], '`items` must be one schema, not a list (Kubernetes rejects tuple schemas)');
    return { type: 'array', items: { type: 'json', ...emptyInfo() }, ...info };
  }
  if (items === undefined) {
    ctx.warn(path, 'an array without `items` is not a structural schema; items typed as JsonValue (any JSON)');
    return { type: 'array', items: { type: 'json', ...emptyInfo() }, ...info };
  }
  return { type: 'array', items: normalise(items, [...path, 'items'], ctx), ...info };
}

function readInfo(
  raw: JsonMap,
  path: readonly PathSegment[],
  ctx: DocumentContext,
  constraints: readonly string[],
): NodeInfo {
  const info: {
    -readonly [K in keyof NodeInfo]: NodeInfo[K];
  } = { nullable: raw['nullable'] === true, validations: readValidations(raw, path, ctx), constraints };
  const text = (key: string): string | undefined => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  const description = text('description');
  if (description !== undefined && description.trim()) info.description = description;
  if (hasKey(raw, 'default')) info.default = { value: raw['default']! };
  const format = text('format');
  if (format) info.format = format;
  const pattern = text('pattern');
  if (pattern) info.pattern = pattern;
  const listType = text('x-kubernetes-list-type');
  if (listType) info.listType = listType;
  if (hasKey(raw, 'x-kubernetes-list-map-keys'))
    info.listMapKeys = stringList(raw['x-kubernetes-list-map-keys'], [...path, 'x-kubernetes-list-map-keys'], ctx);
  const mapType = text('x-kubernetes-map-type');
  if (mapType) info.mapType = mapType;
  return info;
}

function readValidations(raw: JsonMap, path: readonly PathSegment[], ctx: DocumentContext): ValidationRule[] {
  const list = raw['x-kubernetes-validations'];
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    ctx.error([...path, 'x-kubernetes-validations'], '`x-kubernetes-validations` must be a list');
    return [];
  }
  const rules: ValidationRule[] = [];
  list.forEach((item, i) => {
    if (!isJsonMap(item) || typeof item['rule'] !== 'string') {
      ctx.error([...path, 'x-kubernetes-validations', i], 'a validation rule needs a `rule` string');
      return;
    }
    const rule: { -readonly [K in keyof ValidationRule]: ValidationRule[K] } = { rule: item['rule'] };
    for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
      const value = item[key];
      if (typeof value === 'string') rule[key] = value;
    }
    rules.push(rule);
  });
  return rules;
}

function checkKeywords(raw: JsonMap, path: readonly PathSegment[], ctx: DocumentContext): void {
  for (const key of Object.keys(raw)) {
    const forbidden = FORBIDDEN[key];
    if (forbidden !== undefined && hasKey(FORBIDDEN, key)) ctx.error([...path, key], forbidden);
    else if (!KNOWN.has(key)) ctx.warn(
      [...path, key],
      `unknown schema keyword \`${key}\` (the API server rejects unknown fields); ignored`,
    );
  }
  // References hide in value-only branches too.
  for (const junctor of JUNCTORS) {
    const value = raw[junctor];
    if (value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    list.forEach(
      (branch, i) => findForbidden(branch, Array.isArray(value) ? [...path, junctor, i] : [...path, junctor], ctx)
    );
  }
}

function findForbidden(value: Json, path: readonly PathSegment[], ctx: DocumentContext): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => findForbidden(item, [...path, i], ctx));
    return;
  }
  if (!isJsonMap(value)) return;
  for (const key of Object.keys(value)) {
    if (key === '$ref') ctx.error([...path, key], FORBIDDEN['$ref']!);
    // Below `properties` the keys are field names, not keywords.
    if (key === 'properties' && isJsonMap(value[key])) {
      const props = value[key] as JsonMap;
      for (const name of Object.keys(props)) findForbidden(props[name]!, [...path, key, name], ctx);
    } else {
      findForbidden(value[key]!, [...path, key], ctx);
    }
  }
}

function stringList(value: Json | undefined, path: readonly PathSegment[], ctx: DocumentContext): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    ctx.error(path, 'expected a list of strings');
    return [];
  }
  return value as string[];
}

function emptyInfo(): NodeInfo {
  return { nullable: false, validations: [], constraints: [] };
}

function infoOf(node: SchemaNode): NodeInfo {
  return {
    nullable: node.nullable, description: node.description, default: node.default, format: node.format,
    pattern: node.pattern, listType: node.listType, listMapKeys: node.listMapKeys, mapType: node.mapType,
    validations: node.validations, constraints: node.constraints,
  };
}

function emptyObject(): ObjectNode {
  return { type: 'object', properties: [], preserveUnknown: false, embedded: false, ...emptyInfo() };
}
