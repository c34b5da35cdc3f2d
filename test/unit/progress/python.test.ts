import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonJson, pythonNumber, pythonRepr } from '../../../runtime/progress/python.ts';
import { kopfFixture } from './kopf-fixtures.ts';

const cases = kopfFixture<{ value: unknown; text: string }[]>('json.json');

test('compact JSON is byte for byte Python’s json.dumps', () => {
  assert.ok(cases.length > 25);
  for (const { value, text } of cases) assert.equal(pythonJson(value), text, JSON.stringify(value));
});

test('numbers print as Python prints them', () => {
  assert.equal(pythonNumber(1e-5), '1e-05');
  assert.equal(pythonNumber(0.0001), '0.0001');
  assert.equal(pythonNumber(-0), '0');
  assert.equal(pythonNumber(1e21), '1000000000000000000000');
  assert.equal(pythonNumber(2.5), '2.5');
  assert.equal(pythonNumber(Number.NaN), 'NaN');
  assert.equal(pythonJson({ a: undefined, b: [undefined] }), '{"b":[null]}');
});

test('string reprs are Python’s', () => {
  assert.equal(pythonRepr('create_fn'), "'create_fn'");
  assert.equal(pythonRepr("it's"), `"it's"`);
  assert.equal(pythonRepr(`it's "x"`), `'it\\'s "x"'`);
  assert.equal(pythonRepr('a\\b\n\t\x01\x7f'), "'a\\\\b\\n\\t\\x01\\x7f'");
  assert.equal(pythonRepr('é🎉 ключ'), "'é🎉 ключ'");
  assert.equal(pythonRepr('\u00a0\u200b\u2028'), "'\\xa0\\u200b\\u2028'");
});

test('inside mappings too, numbers, non-ASCII text and non-finite values are written as Python writes them', () => {
  const value = { a: 1e-5, b: [1e-7, 1e21, 0.00001234], c: Number.NaN, d: 'ü', e: -Infinity, f: { g: null } };
  const text = '{"a":1e-05,"b":[1e-07,1000000000000000000000,1.234e-05],"c":NaN,"d":"\\u00fc","e":-Infinity,'
    + '"f":{"g":null}}';
  assert.equal(pythonJson(value), text);
  assert.equal(pythonJson({ a: 'plain', b: [1, 2.5, true] }), '{"a":"plain","b":[1,2.5,true]}');
});
