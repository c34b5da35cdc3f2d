import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cherrypick,
  copyJson,
  diff,
  ensureField,
  hasField,
  jsonEqual,
  parseField,
  reduceDiff,
  removeField,
  resolveField,
  type Diff,
  type DiffScope,
} from '../../../runtime/structs/diffs.ts';
import { kopfFixture } from '../progress/kopf-fixtures.ts';

type Item = [string, string[], unknown, unknown];
interface DiffsFixture {
  pairs: { a: unknown; b: unknown; full: Item[]; left: Item[]; right: Item[] }[];
  reductions: { a: unknown; b: unknown; path: string[]; result: Item[] }[];
}
const fixture = kopfFixture<DiffsFixture>('diffs.json');

/** Kopf's item order follows Python's set iteration, so diffs compare as sorted lists. */
function sorted(d: Diff): Item[] {
  const items = d.map(([op, path, old, neu]) => [op, [...path], old ?? null, neu ?? null] as Item);
  return items.sort((x, y) => JSON.stringify(x.slice(0, 2)).localeCompare(JSON.stringify(y.slice(0, 2))));
}

test('diffs are Kopf’s in every scope', () => {
  assert.ok(fixture.pairs.length > 20);
  for (const { a, b, full, left, right } of fixture.pairs) {
    for (const [scope, expected] of [['full', full], ['left', left], ['right', right]] as [DiffScope, Item[]][]) {
      assert.deepEqual(
        sorted(diff(a, b, { scope })),
        expected,
        `diff(${JSON.stringify(a)}, ${JSON.stringify(b)}) in scope ${scope}`,
      );
    }
  }
});

test('diffs reduced to a field are Kopf’s', () => {
  for (const { a, b, path, result } of fixture.reductions) {
    assert.deepEqual(
      sorted(reduceDiff(diff(a, b), path)),
      result,
      `reduce(diff(${JSON.stringify(a)}, ${JSON.stringify(b)}), ${path})`,
    );
  }
});

test('a diff keeps Kopf’s item shape and order within one mapping: added, removed, changed', () => {
  assert.deepEqual(
    diff({ x: 1, y: 2 }, { y: 3, z: 4 }),
    [['add', ['z'], null, 4], ['remove', ['x'], 1, null], ['change', ['y'], 2, 3]],
  );
  assert.deepEqual(diff({ a: [1, 2] }, { a: [1, 2, 3] }), [['change', ['a'], [1, 2], [1, 2, 3]]]);
  assert.deepEqual(diff(undefined, null), []);
  assert.deepEqual(diff({ a: 1 }, { a: 2 }, { path: ['spec'] }), [['change', ['spec', 'a'], 1, 2]]);
  // Python's `==`, as in Kopf: booleans equal their numbers.
  assert.deepEqual(diff({ a: true, b: [false] }, { a: 1, b: [0] }), []);
});

test('a reduced diff re-diffs a replaced parent down to the field', () => {
  const d = diff({}, { spec: { a: { b: 1, c: 2 } } });
  assert.deepEqual(reduceDiff(d, 'spec.a.b'), [['add', [], null, 1]]);
  assert.deepEqual(reduceDiff(d, ['spec', 'a']), [['add', [], null, { b: 1, c: 2 }]]);
  assert.deepEqual(reduceDiff(d, 'status'), []);
});

test('fields are dotted paths through mappings only', () => {
  assert.deepEqual(parseField('spec.a.b'), ['spec', 'a', 'b']);
  assert.deepEqual(parseField(['x.y', 'z']), ['x.y', 'z']);
  assert.deepEqual(parseField(null), []);
  const body = { spec: { a: { b: 0 }, list: [{ x: 1 }], nil: null } };
  assert.equal(resolveField(body, 'spec.a.b'), 0);
  assert.equal(resolveField(body, 'spec.list.0'), undefined);
  assert.equal(resolveField(body, 'spec.a.b.c', 'fallback'), 'fallback');
  assert.equal(resolveField(body, 'spec.nil'), null);
  assert.equal(resolveField(body, ''), undefined);
  assert.deepEqual(resolveField(body, []), body);
  assert.equal(hasField(body, 'spec.nil'), true);
  assert.equal(hasField(body, 'spec.absent'), false);
  assert.equal(hasField(body, 'spec.list.0'), false);
  assert.equal(hasField(null, 'spec'), false);
});

test('ensuring a field creates its parents; removing it drops the parents it emptied', () => {
  const obj: { [key: string]: unknown } = { keep: { other: 1 }, scalar: 'x' };
  ensureField(obj, 'a.b.c', 1);
  ensureField(obj, 'scalar.d', 2);
  assert.deepEqual(obj, { keep: { other: 1 }, scalar: { d: 2 }, a: { b: { c: 1 } } });
  removeField(obj, 'a.b.c');
  removeField(obj, 'keep.absent.deeper');
  removeField(obj, 'scalar.d.deeper');
  assert.deepEqual(obj, { keep: { other: 1 }, scalar: { d: 2 } });
  assert.throws(() => ensureField(obj, [], 1), TypeError);
  assert.throws(() => removeField(obj, null), TypeError);
});

test('cherry-picking copies fields deeply and skips absent ones', () => {
  const src = { status: { phase: 'Running', deep: { x: [1] } } };
  const dst: { [key: string]: unknown } = { spec: {} };
  cherrypick(src, dst, ['status.phase', 'status.deep', 'status.absent', 'metadata.name']);
  assert.deepEqual(dst, { spec: {}, status: { phase: 'Running', deep: { x: [1] } } });
  ((dst.status as { deep: { x: number[] } }).deep.x).push(2);
  assert.deepEqual(src.status.deep.x, [1]);
});

test('a copy of JSON data is deep, keeps key order, and keeps a `__proto__` key as data', () => {
  const original = JSON.parse('{"b":{"x":[1,{"y":2}]},"a":null,"__proto__":{"polluted":true}}') as {
    [key: string]: unknown
  };
  const copy = copyJson(original);
  assert.deepEqual(Object.keys(copy), ['b', 'a', '__proto__']);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal((copy as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(JSON.stringify(copy), JSON.stringify(original));
  ((copy.b as { x: unknown[] }).x).push(3);
  assert.deepEqual((original.b as { x: unknown[] }).x, [1, { y: 2 }]);
});

test('JSON equality is structural; nothing equals nothing', () => {
  assert.ok(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }));
  assert.ok(jsonEqual({ a: 1, b: undefined }, { a: 1 }));
  assert.ok(jsonEqual(null, undefined));
  assert.ok(!jsonEqual([1, 2], [2, 1]));
  assert.ok(!jsonEqual({ a: 1 }, { a: '1' }));
  assert.ok(!jsonEqual(0, false));
  assert.ok(!jsonEqual([], {}));
});

test('a `__proto__` on a field path names data: ensuring it never reaches a prototype', () => {
  const obj = JSON.parse('{"spec":{"__proto__":{"kept":1}}}') as { [key: string]: unknown };
  ensureField(obj, ['spec', '__proto__', 'x'], 2);
  ensureField(obj, ['status', '__proto__'], { y: 3 });
  assert.equal(({} as { x?: unknown }).x, undefined);
  assert.equal(Object.getPrototypeOf(obj.status), Object.prototype);
  assert.equal(JSON.stringify(obj), '{"spec":{"__proto__":{"kept":1,"x":2}},"status":{"__proto__":{"y":3}}}');
});
