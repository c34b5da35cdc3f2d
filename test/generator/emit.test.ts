/**
 * What the emitter makes of a model: names (shallowest path, own spec/status names, collisions),
 * shape sharing, read and input types, enums, well-known types, imports, field maps, order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderFiles } from '../../generator/emit/render.ts';
import { buildModel } from '../../generator/model/build.ts';
import { crdYaml, source, specSchema } from './support/sources.ts';

function render(...crds: string[]): Map<string, string> {
  return renderFiles(buildModel(crds.map((text, i) => source(`crd${i}.yaml`, text))));
}

function declarations(text: string): string[] {
  return [...text.matchAll(/^export (?:interface|type|const) (\w+)/gm)].map((m) => m[1]!);
}

const shared = '{type: object, properties: {host: {type: string}, port: {type: integer}}}';

test('nested types are named by their shallowest path, shared by shape, numbered on collision', () => {
  const files = render(crdYaml({ schema: specSchema(`
                deep:
                  type: object
                  properties:
                    target: ${shared}
                target: ${shared}
                fooBar:
                  type: object
                  properties: {x: {type: string}}
                foo:
                  type: object
                  properties:
                    bar:
                      type: object
                      properties: {x: {type: integer}}`) }));
  const text = files.get('test.kopf.dev/v1.ts')!;
  assert.deepEqual(declarations(text), [
    'Thing', 'ThingInput', 'ThingFields', 'ThingPatch', 'Thing',
    'ThingSpec', 'ThingSpecDeep', 'ThingSpecTarget', 'ThingSpecFooBar', 'ThingSpecFoo', 'ThingSpecFooBar2',
  ]);
  assert.match(text, /export interface ThingSpecDeep \{\n {2}target\?: ThingSpecTarget;\n\}/);
  assert.match(text, /export interface ThingSpecFoo \{\n {2}bar\?: ThingSpecFooBar2;\n\}/);
});

test("a kind's spec and status are its own names, aliases where another kind has the same shape", () => {
  const schema = `
          type: object
          properties:
            spec: ${shared}`;
  const files = render(crdYaml({ kind: 'Alpha', schema }), crdYaml({ kind: 'Beta', schema }));
  const text = files.get('test.kopf.dev/v1.ts')!;
  assert.match(text, /export interface AlphaSpec \{/);
  assert.match(text, /export type BetaSpec = AlphaSpec;/);
  assert.match(text, /export interface Beta extends KubeObject \{[^}]*\n {2}spec\?: BetaSpec;/);
  assert.match(files.get('index.ts')!, /export type \{ BetaFields, BetaInput, BetaPatch, BetaSpec \}/);
});

test('defaults: required to read, optional to write; an Input type only where they differ', () => {
  const files = render(crdYaml({ schema: specSchema(`
                plain: {type: object, properties: {a: {type: string}}}
                items:
                  type: array
                  items:
                    type: object
                    properties:
                      mode: {type: string, default: auto}`) }), crdYaml({ kind: 'Simple' }));
  const text = files.get('test.kopf.dev/v1.ts')!;
  assert.match(text, /export interface ThingSpecItems \{\n[^}]*\n {2}mode: string;\n\}/);
  assert.match(text, /export interface ThingSpecItemsInput \{\n[^}]*\n {2}mode\?: string;\n\}/);
  assert.match(text, /export interface ThingSpecInput \{[^}]*items\?: ThingSpecItemsInput\[\];/);
  assert.match(text, /export interface ThingSpecInput \{[^}]*plain\?: ThingSpecPlain;/, 'no ThingSpecPlainInput');
  assert.doesNotMatch(text, /ThingSpecPlainInput/);
  assert.match(text, /export type SimpleInput = Simple;/);
});

test('a field both required and defaulted is there to read and optional to write: the API server fills it in ' +
  'first', () => {
  const text = render(crdYaml({ schema: `
          type: object
          properties:
            spec:
              type: object
              required: [size, name]
              properties:
                size: {type: integer, default: 1}
                name: {type: string}` })).get('test.kopf.dev/v1.ts')!;
  assert.match(text, /export interface ThingSpec \{\n[^}]*\n {2}size: number;\n {2}name: string;\n\}/);
  assert.match(text, /export interface ThingSpecInput \{\n[^}]*\n {2}size\?: number;\n {2}name: string;\n\}/);
  assert.match(text, /export interface ThingInput extends KubeObject \{[^}]*\n {2}spec\?: ThingSpecInput;/);
});

test('the descriptor carries the input type, for the client to take when creating', () => {
  const files = render(crdYaml({ schema: specSchema(`
                mode: {type: string, default: auto}`) }), crdYaml({ kind: 'Simple' }));
  const text = files.get('test.kopf.dev/v1.ts')!;
  assert.match(text, /export const Thing: ResourceDescriptor<Thing, ThingFields, ThingInput> = \{/);
  assert.match(text, /export const Simple: ResourceDescriptor<Simple, SimpleFields, SimpleInput> = \{/);
});

test('enums: a literal union and its values, shared by value set; "" and case twins kept', () => {
  const text = render(crdYaml({ schema: specSchema(`
                mode: {type: string, enum: [Fast, fast, ""]}
                other: {type: string, enum: [Fast, fast, ""]}
                codes: {type: array, items: {type: integer, enum: [301, 302]}}`) })).get('test.kopf.dev/v1.ts')!;
  assert.match(
    text,
    /export type ThingSpecMode = 'Fast' \| 'fast' \| '';\nexport const ThingSpecModeValues = \['Fast', 'fast', ''\] as const;/, // lint-ignore: a regular expression cannot wrap
  );
  assert.match(text, /other\?: ThingSpecMode;/);
  assert.match(text, /codes\?: ThingSpecCodes\[\];/);
  assert.match(text, /export type ThingSpecCodes = 301 \| 302;/);
});

test('well-known shapes come from kopf; near misses get their own type; clashing imports are aliased', () => {
  const condition = (required: string) => `
                  type: array
                  items:
                    type: object
                    required: [${required}]
                    properties:
                      type: {type: string}
                      status: {type: string, enum: ["True", "False", Unknown]}
                      observedGeneration: {type: integer, format: int64}
                      lastTransitionTime: {type: string, format: date-time}
                      reason: {type: string}
                      message: {type: string}`;
  const text = render(crdYaml({ kind: 'Condition', schema: `
          type: object
          properties:
            status:
              type: object
              properties:
                conditions:${condition('type, status, lastTransitionTime, reason, message')}
                loose:${condition('type, status')}` })).get('test.kopf.dev/v1.ts')!;
  assert.match(text, /import type \{[^}]*Condition as KopfCondition[^}]*\} from 'kopf';/);
  assert.match(text, /conditions\?: KopfCondition\[\];/);
  assert.match(text, /loose\?: ConditionStatusLoose\[\];/);
  assert.match(text, /export interface Condition extends KubeObject/);
});

test('field maps: paths through objects, whole values at arrays and maps, patterns below open objects, no dotted ' +
  'keys', () => {
  const text = render(crdYaml({ schema: specSchema(`
                a: {type: object, properties: {b: {type: string}}}
                list: {type: array, items: {type: object, properties: {c: {type: string}}}}
                map: {type: object, additionalProperties: {type: object, properties: {d: {type: string}}}}
                open: {type: object, x-kubernetes-preserve-unknown-fields: true}
                dotted.key: {type: string}`) })).get('test.kopf.dev/v1.ts')!;
  const fields =
    /export type ThingFields = \{\n([\s\S]*?)\n\};/.exec(text)![1]!.split('\n').map((l) => l.trim()).filter(
      (l) => !l.startsWith("'metadata.")
    );
  assert.deepEqual(fields, [
    "'metadata': ObjectMeta;",
    "'spec': ThingSpec;",
    "'spec.a': ThingSpecA;",
    "'spec.a.b': string;",
    "'spec.list': ThingSpecList[];",
    "'spec.map': { [key: string]: ThingSpecMap };",
    "'spec.open': JsonObject;",
    '[path: `spec.open.${string}`]: unknown;',
  ]);
});

test('a root that keeps unknown fields still types spec and status as open objects', () => {
  const text = render(
    crdYaml({ schema: '\n          type: object\n          x-kubernetes-preserve-unknown-fields: true' })
  ).get('test.kopf.dev/v1.ts')!;
  assert.match(
    text,
    /export interface Thing extends KubeObject \{\n[^}]*spec\?: JsonObject;\n {2}status\?: JsonObject;\n\}/,
  );
  assert.match(text, /\[path: `spec\.\$\{string\}`\]: unknown;/);
});

test('the output does not depend on the order of the inputs', () => {
  const a = crdYaml({ kind: 'Alpha' });
  const b = crdYaml({ kind: 'Beta', group: 'other.kopf.dev' });
  const forward = renderFiles(buildModel([source('a.yaml', a), source('b.yaml', b)]));
  const backward = renderFiles(buildModel([source('b.yaml', b), source('a.yaml', a)]));
  assert.deepEqual([...backward], [...forward]);
});
