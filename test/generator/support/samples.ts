/**
 * Sample objects for a CRD version, written straight from its raw schema (not from kopf-gen's
 * model), as TypeScript object literals: a generated type that rejects a valid object, or a
 * property the types lost, shows up as a compile error.
 *
 * - `minimal`: required fields without defaults only (what a user must write, checked against KindInput);
 * - `read`: required and defaulted fields (what the API server returns, checked against Kind);
 * - `full`: every field down to a size budget, with extra keys where unknown fields are kept.
 */
export type SampleMode = 'minimal' | 'read' | 'full';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const FULL_BUDGET = 4000;

export function sampleObject(schema: Schema, apiVersion: string, kind: string, mode: SampleMode): string {
  const budget = { left: mode === 'full' ? FULL_BUDGET : Number.POSITIVE_INFINITY };
  const props = properties(schema);
  const members = [
    `apiVersion: ${JSON.stringify(apiVersion)}`,
    `kind: ${JSON.stringify(kind)}`,
    'metadata: { name: "sample", labels: { app: "sample" } }',
  ];
  const required = requiredOf(schema);
  for (const [name, sub] of Object.entries(props)) {
    if (['apiVersion', 'kind', 'metadata'].includes(name)) continue;
    if (!included(name, sub, required, mode, budget)) continue;
    members.push(`${key(name)}: ${value(sub, mode, budget, 1)}`);
  }
  return `{ ${members.join(', ')} }`;
}

function included(
  name: string,
  schema: Json,
  required: Set<string>,
  mode: SampleMode,
  budget: { left: number },
): boolean {
  const defaulted = isMap(schema) && schema['default'] !== undefined;
  // The API server fills in defaults before it validates: a user need not write them, required or not.
  if (required.has(name)) return mode !== 'minimal' || !defaulted;
  if (mode === 'read') return defaulted;
  if (mode === 'full') return budget.left > 0;
  return false;
}

function value(schema: Json, mode: SampleMode, budget: { left: number }, depth: number): string {
  budget.left--;
  if (!isMap(schema)) return 'null';
  if (schema['x-kubernetes-int-or-string'] === true) return depth % 2 ? '1' : '"1"';
  const type = schema['type'];
  const values = schema['enum'];
  if (Array.isArray(values) && values.some((v) => v !== null && typeof v !== 'object')) {
    const first = values.find((v) => v !== null && typeof v !== 'object')!;
    return JSON.stringify(first);
  }
  if (type === undefined && schema['x-kubernetes-embedded-resource'] !== true && !isMap(schema['properties'])) {
    return mode === 'full' ? '{ free: ["form", 1, true, null, { nested: {} }] }' : '"anything"';
  }
  switch (type) {
    case 'string':
      return schema['format'] === 'date-time' ? '"2024-01-02T03:04:05Z"' : '"text"';
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'true';
    case 'array': {
      if (mode !== 'full' || budget.left <= 0) return '[]';
      return `[${value(schema['items'] ?? {}, mode, budget, depth + 1)}]`;
    }
    default:
      return object(schema, mode, budget, depth);
  }
}

function object(schema: Schema, mode: SampleMode, budget: { left: number }, depth: number): string {
  const members: string[] = [];
  const props = properties(schema);
  const required = requiredOf(schema);
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    if (!('apiVersion' in props)) members.push('apiVersion: "v1"');
    if (!('kind' in props)) members.push('kind: "ConfigMap"');
  }
  for (const [name, sub] of Object.entries(props)) {
    if (embedded && (name === 'apiVersion' || name === 'kind')) {
      members.push(`${key(name)}: ${name === 'kind' ? '"ConfigMap"' : '"v1"'}`);
      continue;
    }
    if (embedded && name === 'metadata') {
      members.push('metadata: { name: "embedded" }');
      continue;
    }
    if (!included(name, sub, required, mode, budget)) continue;
    members.push(`${key(name)}: ${value(sub, mode, budget, depth + 1)}`);
  }
  const additional = schema['additionalProperties'];
  if (
    mode === 'full' && budget.left > 0 && additional !== undefined && additional !== false && !Object.keys(props).length
  ) {
    members.push(`"some-key": ${additional === true ? '"anything"' : value(additional, mode, budget, depth + 1)}`);
  }
  if (mode === 'full' && schema['x-kubernetes-preserve-unknown-fields'] === true)
    members.push('"x-unknown-field": [1, "two"]');
  return `{ ${members.join(', ')} }`;
}

function properties(schema: Schema): { [key: string]: Json } {
  const props = schema['properties'];
  return isMap(props) ? props : {};
}

function requiredOf(schema: Schema): Set<string> {
  const names = new Set<string>();
  const add = (list: Json | undefined) => {
    if (Array.isArray(list)) for (const n of list) if (typeof n === 'string') names.add(n);
  };
  add(schema['required']);
  const allOf = schema['allOf'];
  if (Array.isArray(allOf)) for (const branch of allOf) if (isMap(branch)) add(branch['required']);
  return names;
}

/** A key in an object literal; `__proto__` computed, so it is a property and not the prototype. */
function key(name: string): string {
  return name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
}

function isMap(value: Json | undefined): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
