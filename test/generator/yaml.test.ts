/**
 * YAML is read as Kubernetes reads it (sigs.k8s.io/yaml: go-yaml v2, YAML 1.1 scalars, then JSON),
 * not as a YAML 1.2 parser would: what kopf-gen types must be what the API server stores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseYamlStream } from '../../generator/input/yaml.ts';

function read(text: string): unknown {
  const stream = parseYamlStream(text, 'test.yaml');
  assert.deepEqual(stream.errors, []);
  return JSON.parse(JSON.stringify(stream.documents[0]!.value));
}

test('YAML 1.1 booleans: on/off, yes/no, y/n are booleans; quoted they are strings', () => {
  assert.deepEqual(read('a: [on, off, yes, no, y, n, True, OFF, "on", \'yes\', onion]'), {
    a: [true, false, true, false, true, false, true, false, 'on', 'yes', 'onion'],
  });
});

test('numbers: leading-zero octal, 0o/0x/0b, underscores, floats; timestamps stay strings', () => {
  assert.deepEqual(read(
    'a: [0755, 0o17, 0x1F, 0b101, 1_000, -12, +3, 1e3, .5, 09, 2024-01-02, 2024-01-02T03:04:05Z, 1.2.3]'
  ), {
    a: [493, 15, 31, 5, 1000, -12, 3, 1000, 0.5, 9, '2024-01-02', '2024-01-02T03:04:05Z', '1.2.3'],
  });
});

test('null: empty, ~, null, Null', () => {
  assert.deepEqual(read('a: [~, null, Null, NULL, ""]\nb:'), { a: [null, null, null, null, ''], b: null });
});

test('keys become JSON keys the way sigs.k8s.io/yaml writes them', () => {
  // (JavaScript lists integer-like keys first; the set is what matters.)
  assert.deepEqual(
    Object.keys(read('on: 1\nno: 2\n0755: 3\n1e6: 4\n1.5: 5\n"on": 6') as object).sort(),
    ['1.5', '1e+06', '493', 'false', 'on', 'true'],
  );
});

test('explicit tags: !!str keeps the text, !!int reads it, a mismatch is an error', () => {
  assert.deepEqual(
    read('a: !!str 0755\nb: !!int "12"\nc: !!float 1\nd: !custom kept'),
    { a: '0755', b: 12, c: 1, d: 'kept' },
  );
  const stream = parseYamlStream('a: !!int twelve', 'test.yaml');
  assert.match(stream.errors[0]!.message, /cannot decode !!str `twelve` as a !!int/);
});

test('anchors, aliases and merge keys; explicit keys win over merged ones', () => {
  assert.deepEqual(read('base: &b {a: 1, b: 2}\ncopy: *b\nmerged:\n  <<: *b\n  b: 3'), {
    base: { a: 1, b: 2 }, copy: { a: 1, b: 2 }, merged: { b: 3, a: 1 },
  });
});

test('__proto__ and constructor are plain keys', () => {
  const stream = parseYamlStream('__proto__: {polluted: true}\nconstructor: x', 'test.yaml');
  const value = stream.documents[0]!.value as { [key: string]: unknown };
  assert.deepEqual(Object.keys(value), ['__proto__', 'constructor']);
  assert.deepEqual(value['__proto__'], Object.assign(Object.create(null), { polluted: true }));
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});

test('duplicate keys, NaN and null keys are errors with their positions', () => {
  const dup = parseYamlStream('a: 1\nb: 2\na: 3', 'test.yaml');
  assert.equal(dup.errors.length, 1);
  assert.equal(dup.errors[0]!.line, 3);
  assert.deepEqual(dup.errors[0]!.path, ['a']);
  assert.match(parseYamlStream('a: .nan', 'test.yaml').errors[0]!.message, /not a JSON number/);
  assert.match(parseYamlStream('~: 1', 'test.yaml').errors[0]!.message, /must not be null/);
});

test('multi-document streams: empty documents are skipped, indexes count every document', () => {
  const stream = parseYamlStream('a: 1\n---\n# nothing\n---\nb: 2\n', 'test.yaml');
  assert.deepEqual(stream.documents.map((d) => d.index), [1, 3]);
});

test('positions of JSON paths, for messages about valid YAML', () => {
  const stream = parseYamlStream('spec:\n  versions:\n  - name: v1\n    schema:\n      x: 1\n', 'test.yaml');
  assert.deepEqual(stream.locate(1, ['spec', 'versions', 0, 'schema', 'x']), { line: 5, column: 7 });
  assert.deepEqual(stream.locate(1, ['spec', 'versions', 0, 'missing', 'deeper']), { line: 3, column: 5 });
});
