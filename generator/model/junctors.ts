/**
 * oneOf/anyOf/allOf/not in structural schemas only restrict values (Kubernetes forbids types
 * inside them), so they never change the shape. Their `required` lists do say which fields
 * must be there: allOf's (and a single branch's) are merged into `required`; the rest is told
 * in words for the documentation. Types stay plain: exclusivity in the type system would make
 * every partial object and merge patch fight the checker.
 */
import { canonicalJson, isJsonMap, newJsonMap } from '../input/json.ts';
import type { Json, JsonMap } from '../input/json.ts';

export const JUNCTORS = ['allOf', 'oneOf', 'anyOf', 'not'] as const;

export interface JunctorReading {
  /** Field names these rules make required. */
  readonly required: readonly string[];
  /** The remaining rules, in words. */
  readonly constraints: readonly string[];
}

export function readJunctors(schema: JsonMap, intOrString: boolean): JunctorReading {
  const required: string[] = [];
  const constraints: string[] = [];
  const allOf = branches(schema['allOf']);
  for (const branch of allOf) {
    const names = requiredOnly(branch);
    if (names) required.push(...names);
    else constraints.push(...describeBranch(branch));
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const list = branches(schema[keyword]);
    if (!list.length) continue;
    // The int-or-string idiom: `anyOf: [{type: integer}, {type: string}]` is the shape itself.
    if (intOrString && keyword === 'anyOf' && list.every((b) => isJsonMap(b) && typeof b['type'] === 'string'))
      continue;
    if (list.length === 1) {
      const names = requiredOnly(list[0]!);
      if (names) {
        required.push(...names);
        continue;
      }
    }
    constraints.push(describeChoice(keyword, list));
  }
  if (schema['not'] !== undefined) constraints.push(describeNot(schema['not']));
  return { required, constraints };
}

function branches(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

/** The field names of a `{required: [...]}` branch with nothing else in it. */
function requiredOnly(branch: Json): string[] | undefined {
  if (!isJsonMap(branch)) return undefined;
  const keys = Object.keys(branch).filter((k) => k !== 'description');
  if (keys.length !== 1 || keys[0] !== 'required') return undefined;
  const names = branch['required'];
  return Array.isArray(names) && names.every((n) => typeof n === 'string') ? (names as string[]) : undefined;
}

function fieldList(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(' and ');
}

function describeChoice(keyword: 'oneOf' | 'anyOf', list: Json[]): string {
  const sets = list.map(requiredOnly);
  if (sets.every((s) => s !== undefined)) {
    const options = (sets as string[][]).map(fieldList).join(', ');
    return keyword === 'oneOf' ? `exactly one of: ${options}` : `at least one of: ${options}`;
  }
  // protoc-gen style "at most one": oneOf [ not(anyOf [required a, required b]), required a, required b ].
  if (keyword === 'oneOf') {
    const [first, ...rest] = list;
    const restSets = rest.map(requiredOnly);
    const negated = isJsonMap(first) && Object.keys(first).length === 1 && isJsonMap(
      first['not']
    ) ? first['not'] : undefined;
    const inner = negated && Object.keys(negated).length === 1 ? branches(negated['anyOf']).map(requiredOnly) : [];
    if (
      rest.length && restSets.every((s) => s !== undefined) && inner.length === rest.length && inner.every(
        (s) => s !== undefined
      )
    ) {
      return `at most one of: ${(restSets as string[][]).map(fieldList).join(', ')}`;
    }
  }
  return `${keyword}: ${compact(list)}`;
}

function describeNot(value: Json): string {
  const names = requiredOnly(value);
  if (names)
    return names.length === 1 ? `must not have ${fieldList(names)}` : `must not have all of ${fieldList(names)}`;
  return `not: ${compact(value)}`;
}

function describeBranch(branch: Json): string[] {
  return [`allOf: ${compact(branch)}`];
}

function compact(value: Json): string {
  const text = canonicalJson(stripDescriptions(value));
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}

function stripDescriptions(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDescriptions);
  if (!isJsonMap(value)) return value;
  const out = newJsonMap();
  for (const key of Object.keys(value)) if (key !== 'description') out[key] = stripDescriptions(value[key]);
  return out;
}
