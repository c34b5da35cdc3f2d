/**
 * Bad input is refused with messages that lead to the place: file, document index, JSON path,
 * and line and column. All problems of all files are reported at once; nothing is generated.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDiagnostic, InputError } from '../../generator/diagnostics/diagnostic.ts';
import type { Diagnostic } from '../../generator/diagnostics/diagnostic.ts';
import { buildModel } from '../../generator/model/build.ts';
import { crdYaml, source, specSchema } from './support/sources.ts';

function errorsOf(...files: [string, string][]): Diagnostic[] {
  try {
    buildModel(files.map(([name, text]) => source(name, text)));
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return [...e.diagnostics];
  }
  assert.fail('expected an InputError');
}

test('broken YAML: the file, the document and the line', () => {
  const text = `${crdYaml()}---\nkind: [unclosed\n`;
  const [error, ...rest] = errorsOf(['crds/broken.yaml', text]);
  assert.equal(rest.length, 0);
  assert.equal(error!.file, 'crds/broken.yaml');
  assert.equal(error!.document, 2);
  assert.ok(error!.line! >= text.split('\n').indexOf('kind: [unclosed') + 1, `line ${error!.line}`);
  assert.match(formatDiagnostic(error!), /^crds\/broken\.yaml:\d+:\d+: error: document 2: /);
});

test('a v1beta1 CRD is refused with a clear message', () => {
  const text = crdYaml().replace('apiextensions.k8s.io/v1\n', 'apiextensions.k8s.io/v1beta1\n');
  const [error] = errorsOf(['old.yaml', `a: 1\n---\n${text}`]);
  assert.equal(error!.document, 2);
  assert.deepEqual(error!.path, ['apiVersion']);
  assert.match(error!.message, /v1beta1 CRDs are not supported.*convert the CRD to apiextensions\.k8s\.io\/v1/);
  assert.equal(error!.line, 3);
});

test('a $ref in a schema, also inside oneOf, is refused at its JSON path', () => {
  const schema = specSchema(`
                a:
                  $ref: '#/definitions/A'
                b:
                  type: string
                  oneOf:
                  - $ref: '#/definitions/B'`);
  const errors = errorsOf(['refs.yaml', crdYaml({ schema })]);
  const base = ['spec', 'versions', 0, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'properties'];
  assert.deepEqual(errors.map((e) => e.path), [[...base, 'a', '$ref'], [...base, 'b', 'oneOf', 0, '$ref']]);
  assert.match(errors[0]!.message, /\$ref.*not allowed/);
  const text = formatDiagnostic(errors[0]!);
  assert.match(
    text,
    /^refs\.yaml:\d+:\d+: error: document 1, spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.a\.\$ref: /, // lint-ignore: a regular expression cannot wrap
  );
  assert.equal(errors[0]!.line, 21);
});

test('a CRD defined twice is refused in the second place, naming the first', () => {
  const errors = errorsOf(['a.yaml', crdYaml()], ['b.yaml', `${crdYaml({ kind: 'Other' })}---\n${crdYaml()}`]);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.file, 'b.yaml');
  assert.equal(errors[0]!.document, 2);
  assert.deepEqual(errors[0]!.path, ['metadata', 'name']);
  assert.match(errors[0]!.message, /things\.test\.kopf\.dev is defined twice; first in a\.yaml, document 1/);
});

test('schemas Kubernetes would reject are errors, each with its path', () => {
  const schema = specSchema(`
                both:
                  type: object
                  properties: {a: {type: string}}
                  additionalProperties: {type: string}
                tuple:
                  type: array
                  items: [{type: string}]
                odd: {type: float}`);
  const errors = errorsOf(['bad.yaml', crdYaml({ schema })]);
  const tails = errors.map((e) => e.path!.slice(8).join('.'));
  assert.deepEqual(tails, ['both.additionalProperties', 'tuple.items', 'odd.type']);
});

test('CRD-level mistakes: two storage versions, no schema, a name that is not <plural>.<group>', () => {
  const twoStorage = crdYaml().replace(
    '  versions:\n',
    `  versions:\n  - name: v2\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n`,
  );
  const noSchema = crdYaml({ kind: 'Bare' }).replace(/    schema:\n      openAPIV3Schema:[\s\S]*$/, '');
  const misnamed = crdYaml({ kind: 'Named' }).replace('name: nameds.test.kopf.dev', 'name: wrong.test.kopf.dev');
  const errors = errorsOf(['two.yaml', twoStorage], ['none.yaml', noSchema], ['named.yaml', misnamed]);
  assert.deepEqual(errors.map((e) => e.file), ['two.yaml', 'none.yaml', 'named.yaml']);
  assert.match(errors[0]!.message, /exactly one version must have storage: true \(found 2\)/);
  assert.match(errors[1]!.message, /needs a schema/);
  assert.match(errors[2]!.message, /must be named "nameds\.test\.kopf\.dev"/);
});

test('non-CRD documents are skipped with a note; CRDs inside a List are read', () => {
  const list =
    `apiVersion: v1\nkind: ` +
      `List\nitems:\n${crdYaml().split('\n').map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`)).join('\n')}\n`;
  const model = buildModel(
    [source('mixed.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n${list}`)]
  );
  assert.deepEqual(model.resources.map((r) => r.name), ['things.test.kopf.dev']);
  assert.deepEqual(model.resources[0]!.source, { file: 'mixed.yaml', document: 2, path: ['items', 0] });
  const notes = model.diagnostics.filter((d) => d.severity === 'note');
  assert.equal(notes.length, 1);
  assert.match(notes[0]!.message, /skipped: not a CustomResourceDefinition \(kind: ConfigMap\)/);
});
