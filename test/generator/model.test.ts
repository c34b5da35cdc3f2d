/**
 * The normalised model: Kubernetes' reading of schemas (int-or-string, quantities, preserve,
 * embedded resources, allOf's required), version priority, defaults of names, and warnings
 * where the API server would prune what a Kopf-style operator writes to status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildModel } from '../../generator/model/build.ts';
import { camelCase, pascalCase, typeNameOf } from '../../generator/model/identifiers.ts';
import type { ObjectNode, SchemaNode } from '../../generator/model/model.ts';
import { compareVersions } from '../../generator/model/version-order.ts';
import { crdYaml, source } from './support/sources.ts';

function specOf(schema: string): ObjectNode {
  const model = buildModel([source('t.yaml', crdYaml({ schema }))]);
  const spec = model.resources[0]!.versions[0]!.schema.properties.find((p) => p.name === 'spec')!.node;
  assert.equal(spec.type, 'object');
  return spec as ObjectNode;
}

function prop(node: ObjectNode, name: string): SchemaNode {
  return node.properties.find((p) => p.name === name)!.node;
}

test('versions sort by Kubernetes priority', () => {
  const names = ['v1alpha1', 'foo', 'v2', 'v1beta2', 'v1', 'v10beta1', 'v1beta1', 'v11alpha2', 'bar'];
  assert.deepEqual(
    names.sort(compareVersions),
    ['v2', 'v1', 'v10beta1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1', 'bar', 'foo'],
  );
});

test('identifiers from wire names, never from property keys', () => {
  assert.equal(pascalCase('mirror_percent'), 'MirrorPercent');
  assert.equal(pascalCase('foo-bar.baz'), 'FooBarBaz');
  assert.equal(pascalCase('$ref'), 'Ref');
  assert.equal(camelCase('cert-manager.io'), 'certManagerIo');
  assert.equal(camelCase('1password.com'), '_1passwordCom');
  assert.equal(typeNameOf('Widget'), 'Widget');
  assert.equal(typeNameOf('pod-to-be'), 'PodToBe');
  assert.equal(typeNameOf('postgresql'), 'Postgresql');
});

test('int-or-string, with or without anyOf; quantity by its pattern', () => {
  const spec = specOf(`
          type: object
          properties:
            spec:
              type: object
              properties:
                port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
                bare: {x-kubernetes-int-or-string: true}
                memory:
                  x-kubernetes-int-or-string: true
                  anyOf: [{type: integer}, {type: string}]
                  pattern: ^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$ # lint-ignore: a YAML line kept whole`);
  assert.deepEqual(
    ['port', 'bare', 'memory'].map(
      (n) => { const p = prop(spec, n); return p.type === 'int-or-string' && p.quantity; }
    ),
    [false, false, true],
  );
  assert.deepEqual(prop(spec, 'port').constraints, [], 'the int-or-string anyOf is the shape, not a rule');
});

test('preserve-unknown-fields at every depth; embedded resources get apiVersion, kind, metadata', () => {
  const spec = specOf(`
          type: object
          properties:
            spec:
              type: object
              properties:
                free: {type: object, x-kubernetes-preserve-unknown-fields: true}
                raw: {x-kubernetes-preserve-unknown-fields: true}
                mixed: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}
                manifest: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true} # lint-ignore: a YAML line kept whole`);
  const free = prop(spec, 'free') as ObjectNode;
  assert.deepEqual([free.type, free.preserveUnknown, free.properties.length], ['object', true, 0]);
  assert.equal(prop(spec, 'raw').type, 'json');
  const mixed = prop(spec, 'mixed') as ObjectNode;
  assert.deepEqual([mixed.preserveUnknown, mixed.properties.map((p) => p.name)], [true, ['a']]);
  const manifest = prop(spec, 'manifest') as ObjectNode;
  assert.deepEqual(manifest.properties.map((p) => [p.name, p.required, p.node.type]), [
    ['apiVersion', true, 'string'], ['kind', true, 'string'], ['metadata', false, 'metadata'],
  ]);
});

test('allOf required is merged; oneOf/anyOf/not become words', () => {
  const spec = specOf(`
          type: object
          properties:
            spec:
              type: object
              allOf: [{required: [a]}]
              oneOf: [{required: [b]}, {required: [c]}]
              anyOf: [{required: [b]}, {required: [a, c]}]
              not: {required: [d]}
              properties:
                a: {type: string}
                b: {type: string}
                c: {type: string}
                d: {type: string}`);
  assert.deepEqual(spec.properties.map((p) => p.required), [true, false, false, false]);
  assert.deepEqual(
    spec.constraints,
    ['exactly one of: `b`, `c`', 'at least one of: `b`, `a` and `c`', 'must not have `d`'],
  );
});

test('names: singular defaults to the lower-cased kind; the preferred version is the storage one if served', () => {
  const text = crdYaml().replace(
    '  versions:\n',
    '  versions:\n  - name: v2\n    served: true\n    storage: false\n    schema: {openAPIV3Schema: {type: object}}\n',
  );
  const [r] = buildModel([source('t.yaml', text)]).resources;
  assert.deepEqual(
    [r!.singular, r!.listKind, r!.storageVersion, r!.preferredVersion],
    ['thing', 'ThingList', 'v1', 'v1'],
  );
  assert.deepEqual(r!.versions.map((v) => v.name), ['v2', 'v1']);
  const unserved = text.replace('    served: true\n    storage: true', '    served: false\n    storage: true');
  const [u] = buildModel([source('t.yaml', unserved)]).resources;
  assert.equal(u!.preferredVersion, 'v2');
});

test('warnings where the API server would prune handler results or status-stored progress', () => {
  const status = (schema: string) => crdYaml({ kind: `K${Math.abs(hash(schema))}`, schema });
  const model = buildModel([source('t.yaml', [
    status('\n          type: object\n          properties: {spec: {type: object}}'),
    status(
      '\n          type: object\n          properties: {status: {type: object, properties: {phase: {type: string}}}}'
    ),
    status(
      '\n          type: object\n          properties: {status: {type: object, properties: {kopf: {type: object, ' +
        'x-kubernetes-preserve-unknown-fields: true}}}}'
    ),
    status(
      '\n          type: object\n          properties: {status: {type: object, ' +
        'x-kubernetes-preserve-unknown-fields: true}}'
    ),
    status('\n          type: object\n          x-kubernetes-preserve-unknown-fields: true'),
  ].join('---\n'))]);
  const warnings = model.diagnostics.filter((d) => d.severity === 'warning');
  assert.equal(warnings.length, 3);
  const byDoc = new Map(warnings.map((w) => [w.document, w.message]));
  assert.match(
    byDoc.get(1)!,
    /prunes handler results \(status\.<handler id>\) and progress stored in status \(status\.kopf\): its schema has no status/, // lint-ignore: a regular expression cannot wrap
  );
  assert.match(
    byDoc.get(2)!,
    /prunes handler results .* and progress .*: its status schema has no x-kubernetes-preserve-unknown-fields/,
  );
  assert.match(byDoc.get(3)!, /prunes handler results \(status\.<handler id>\): its status schema/);
  assert.deepEqual(warnings.find((w) => w.document === 2)!.path!.slice(-2), ['properties', 'status']);
});

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

test('a CRD served at no version is left out, with a warning', () => {
  const text = crdYaml().replace('    served: true\n', '    served: false\n');
  const model = buildModel([source('t.yaml', text)]);
  assert.deepEqual(model.resources, []);
  assert.match(
    model.diagnostics.find((d) => d.severity === 'warning' && d.message.includes('not served'))!.message,
    /things\.test\.kopf\.dev is not served at any version/,
  );
});

test('with --status-conditions, warnings where the API server would prune observedGeneration or conditions', () => {
  const schemas = [
    '\n          type: object\n          properties: {spec: {type: object}}',
    '\n          type: object\n          properties: {status: {type: object, properties: {conditions: {type: array, '
      + 'items: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}',
    '\n          type: object\n          properties: {status: {type: object, '
      + 'x-kubernetes-preserve-unknown-fields: true}}',
    '\n          type: object\n          properties: {status: {type: object, properties: {observedGeneration: '
      + '{type: integer}, conditions: {type: array, items: {type: object, '
      + 'x-kubernetes-preserve-unknown-fields: true}}}}}',
  ];
  const text = schemas.map((schema, i) => crdYaml({ kind: `C${i}`, schema })).join('---\n');
  const warned = (statusConditions: boolean) => buildModel([source('t.yaml', text)], undefined, { statusConditions })
    .diagnostics.filter((d) => d.message.includes('settings.status.conditions'));
  assert.deepEqual(warned(false), []);
  const byDoc = new Map(warned(true).map((w) => [w.document, w.message]));
  assert.deepEqual([...byDoc.keys()], [1, 2]);
  assert.match(byDoc.get(1)!, /c0s\.test\.kopf\.dev \(v1\): the API server prunes status\.observedGeneration and /);
  assert.match(byDoc.get(1)!, /prunes status\.observedGeneration and status\.conditions, which/);
  assert.match(byDoc.get(2)!, /prunes status\.observedGeneration, which settings\.status\.conditions keeps/);
});
