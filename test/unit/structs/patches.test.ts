import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigMap } from '../../../runtime/structs/builtins.ts';
import {
  applyMergePatch,
  clearPatch,
  escapePointer,
  guardedJsonPatch,
  isEmptyPatch,
  isPatch,
  jsonDiff,
  Patch,
  patchBody,
  patchContent,
  splitMergePatch, splitStatusOps, toJsonPatch, type JsonPatchOp, type PatchFn,
} from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { kopfFixture } from '../progress/kopf-fixtures.ts';
import { applyJsonPatch } from './json-patch.ts';

type Json = { [key: string]: unknown };
type FnSpec = { fn: 'block' | 'allow' | 'set' | 'delete' | 'append'; value?: unknown; path?: string[] };
interface PatchesFixture {
  cases: {
    name: string;
    body: KubeObject;
    merge: Json;
    fns: FnSpec[];
    ops: JsonPatchOp[];
    transformed: Json;
    truthy: boolean
  }[];
}
const fixture = kopfFixture<PatchesFixture>('patches.json');

/** The same transformations the fixture script gave to Kopf. */
function fnOf(spec: FnSpec): PatchFn {
  return (body: Json) => {
    const meta = (body.metadata ??= {}) as Json;
    const walk = (path: string[], create: boolean) => path.reduce<Json>(
      (obj, key) => (create ? (obj[key] ??= {}) : obj[key]) as Json,
      body,
    );
    if (spec.fn === 'block') {
      const finalizers = (meta.finalizers ??= []) as unknown[];
      if (!finalizers.includes(spec.value)) finalizers.push(spec.value);
    } else if (spec.fn === 'allow') {
      const finalizers = (meta.finalizers ?? []) as unknown[];
      while (finalizers.includes(spec.value)) finalizers.splice(finalizers.indexOf(spec.value), 1);
      if ('finalizers' in meta && finalizers.length === 0) delete meta.finalizers;
    } else if (spec.fn === 'set') {
      walk(spec.path!.slice(0, -1), true)[spec.path!.at(-1)!] = structuredClone(spec.value);
    } else if (spec.fn === 'delete') {
      delete walk(spec.path!.slice(0, -1), false)[spec.path!.at(-1)!];
    } else {
      (walk(spec.path!, false) as unknown as unknown[]).push(structuredClone(spec.value));
    }
  };
}

const byPath = (ops: readonly JsonPatchOp[]) => [...ops].sort(
  (a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))
);

test('merge patches and fns turn into JSON patches that do what Kopf’s do', () => {
  assert.ok(fixture.cases.length > 15);
  for (const c of fixture.cases) {
    const patch = new Patch(c.merge, { fns: c.fns.map(fnOf) });
    const ops = toJsonPatch(patch, c.body);
    assert.deepEqual(applyJsonPatch(c.body, ops), c.transformed, c.name);
    assert.equal(!isEmptyPatch(patch), c.truthy, c.name);
    // Kopf's list diff may replace items one by one where ours removes the tail: same result.
    if (c.name !== 'merge-list') assert.deepEqual(byPath(ops), byPath(c.ops), c.name);
  }
});

test('the finalizer ops are exactly Kopf’s', () => {
  const marker = 'kopf.zalando.org/KopfFinalizerMarker';
  const body = { metadata: { name: 'x', resourceVersion: '7' } };
  const add = new Patch({}, { body, fns: [fnOf({ fn: 'block', value: marker })] });
  assert.deepEqual(guardedJsonPatch(toJsonPatch(add), patchBody(add)?.metadata?.resourceVersion), [
    { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    { op: 'add', path: '/metadata/finalizers', value: [marker] },
  ]);
  const only = { metadata: { name: 'x', resourceVersion: '8', finalizers: [marker] } };
  const remove = new Patch({}, { fns: [fnOf({ fn: 'allow', value: marker })] });
  assert.deepEqual(guardedJsonPatch(toJsonPatch(remove, only), only.metadata.resourceVersion), [
    { op: 'test', path: '/metadata/resourceVersion', value: '8' },
    { op: 'remove', path: '/metadata/finalizers' },
  ]);
  assert.deepEqual(guardedJsonPatch([], only.metadata.resourceVersion), []);
  assert.deepEqual(
    guardedJsonPatch([{ op: 'remove', path: '/a' }], undefined)[0],
    { op: 'test', path: '/metadata/resourceVersion', value: null },
  );
});

test('views create their sections on first write and read through to the content', () => {
  const patch = new Patch();
  assert.deepEqual(patchContent(patch), {});
  assert.equal(patch.status.phase, undefined);
  assert.deepEqual(Object.keys(patch.spec), []);
  assert.deepEqual(patchContent(patch), {}, 'reading creates nothing');
  patch.status.phase = 'Running';
  patch.spec.replicas = 3;
  patch.metadata.labels.app = 'x';
  patch.meta.annotations['kopf.zalando.org/fn'] = null;
  patch.data = { k: 'v' };
  assert.deepEqual(JSON.parse(JSON.stringify(patch)), {
    status: { phase: 'Running' },
    spec: { replicas: 3 },
    metadata: { labels: { app: 'x' }, annotations: { 'kopf.zalando.org/fn': null } },
    data: { k: 'v' },
  });
  assert.equal(patch.meta, patch.metadata);
  assert.equal(patch.status.phase, 'Running');
  assert.ok('app' in patch.metadata.labels);
  assert.ok(!('other' in patch.metadata.labels));
  assert.deepEqual({ ...patch.metadata.labels }, { app: 'x' });
  delete patch.metadata.labels.app;
  assert.deepEqual(patchContent(patch).metadata, { labels: {}, annotations: { 'kopf.zalando.org/fn': null } });
  assert.ok(isPatch(patch));
  assert.ok(!isPatch({}));
});

test('content is copied in; fns make a patch non-empty; clearing drops both', () => {
  const content = { spec: { a: 1 } };
  const patch = new Patch(content);
  patch.spec.a = 2;
  assert.equal(content.spec.a, 1);
  const empty = new Patch();
  assert.ok(isEmptyPatch(empty));
  empty.fns.push(() => {});
  assert.ok(!isEmptyPatch(empty));
  clearPatch(patch);
  clearPatch(empty);
  assert.ok(isEmptyPatch(patch) && isEmptyPatch(empty));
  assert.deepEqual(toJsonPatch(empty, { a: 1 }), []);
  assert.throws(() => toJsonPatch(new Patch({ a: 1 })), /original body/);
  assert.throws(() => { (patch as unknown as { fns: unknown }).fns = []; }, TypeError);
});

test('a patch made from a patch copies its content, fns and body', () => {
  const fn: PatchFn = () => {};
  const body = { metadata: { resourceVersion: '1' } };
  const original = new Patch({ spec: { a: 1 } }, { fns: [fn], body });
  const copy = new Patch(original, { fns: [fn] });
  copy.spec.a = 2;
  assert.deepEqual(patchContent(original), { spec: { a: 1 } });
  assert.deepEqual(patchContent(copy), { spec: { a: 2 } });
  assert.equal(copy.fns.length, 2);
  assert.equal(original.fns.length, 1);
  assert.equal(patchBody(copy), body);
});

test('a JSON patch is computed on a copy: neither the body nor the content change', () => {
  const body = { metadata: { resourceVersion: '1' }, spec: { list: [1, 2] } };
  const patch = new Patch(
    { spec: { list: [3] } },
    { fns: [(b: Json) => { ((b.spec as Json).list as number[]).push(4); }] },
  );
  assert.deepEqual(
    toJsonPatch(patch, body),
    [{ op: 'replace', path: '/spec/list/0', value: 3 }, { op: 'replace', path: '/spec/list/1', value: 4 }],
  );
  assert.deepEqual(body.spec.list, [1, 2]);
  assert.deepEqual(patchContent(patch), { spec: { list: [3] } });
});

test('merge patches apply as in Kopf: null removes (with emptied parents), lists replace', () => {
  const target: Json = { a: { b: 1 }, c: [1, 2], d: 'x' };
  applyMergePatch(target, { a: { b: null }, c: [3], e: { f: 1 }, g: null, h: {} });
  assert.deepEqual(target, { c: [3], d: 'x', e: { f: 1 } });
});

test('JSON diffs of lists keep the common head and tail', () => {
  assert.deepEqual(jsonDiff([1, 2, 3, 4], [1, 4]), [{ op: 'remove', path: '/2' }, { op: 'remove', path: '/1' }]);
  assert.deepEqual(
    jsonDiff([1, 4], [1, 2, 3, 4]),
    [{ op: 'add', path: '/1', value: 2 }, { op: 'add', path: '/2', value: 3 }],
  );
  assert.deepEqual(jsonDiff([{ a: 1 }], [{ a: 2 }]), [{ op: 'replace', path: '/0/a', value: 2 }]);
  assert.deepEqual(
    jsonDiff({ 'a/b': 1, 'c~d': 2 }, { 'a/b': 2 }),
    [{ op: 'remove', path: '/c~0d' }, { op: 'replace', path: '/a~1b', value: 2 }],
  );
  assert.deepEqual(jsonDiff(1, 'x'), [{ op: 'replace', path: '', value: 'x' }]);
  assert.deepEqual(jsonDiff({ a: false }, { a: 0 }), [{ op: 'replace', path: '/a', value: 0 }]);
  for (const [a, b] of [[[1, 2, 3], [3, 2, 1]], [[], [1]], [[1, 2], []], [['a', 'b', 'c'], ['x', 'b', 'y', 'c']]]) {
    assert.deepEqual(applyJsonPatch(a, jsonDiff(a, b)), b);
  }
  assert.equal(escapePointer('a~/b'), 'a~0~1b');
});

test('merge patches split between the object and its status subresource', () => {
  assert.deepEqual(
    splitMergePatch({ spec: { a: 1 }, status: { b: 2 } }, true),
    { body: { spec: { a: 1 } }, status: { status: { b: 2 } } },
  );
  assert.deepEqual(
    splitMergePatch({ spec: { a: 1 }, status: { b: 2 } }, false),
    { body: { spec: { a: 1 }, status: { b: 2 } }, status: null },
  );
  assert.deepEqual(splitMergePatch({ status: { b: 2 } }, true), { body: null, status: { status: { b: 2 } } });
  assert.deepEqual(splitMergePatch({ status: null }, true), { body: null, status: null });
  assert.deepEqual(splitMergePatch({}, false), { body: null, status: null });
  const ops: JsonPatchOp[] = [
    { op: 'add', path: '/status', value: {} },
    { op: 'remove', path: '/statusx' },
    { op: 'remove', path: '/status/a' },
  ];
  assert.deepEqual(splitStatusOps(ops, true), { body: [ops[1]], status: [ops[0], ops[2]] });
  assert.deepEqual(splitStatusOps(ops, false), { body: ops, status: [] });
});

test('typed patches are checked against the resource’s type (compile time)', () => {
  interface Thing extends KubeObject { spec?: { replicas?: number; tags?: string[] }; status?: { phase?: string } }
  const patch = new Patch<Thing>();
  patch.status.phase = 'x';
  patch.spec.replicas = null;
  patch.spec.tags = ['a'];
  // @ts-expect-error phase is a string
  patch.status.phase = 1;
  // @ts-expect-error no such status field
  patch.status.bogus = 1;
  patch.fns.push((body) => { body.spec = { replicas: (body.spec?.replicas ?? 0) + 1 }; });
  const untyped: Patch = patch;
  untyped.status.anything = { at: 'all' };
  const cm = new Patch<ConfigMap>();
  cm.data = { key: 'value' };
  // @ts-expect-error ConfigMap data holds strings
  cm.data = { key: 1 };
  assert.deepEqual(
    patchContent(patch),
    { status: { phase: 1, bogus: 1, anything: { at: 'all' } }, spec: { replicas: null, tags: ['a'] } },
  );
});

test('a `__proto__` written into a patch is a field of the merge patch, at the top and in views', () => {
  const patch = new Patch();
  (patch as unknown as Json)['__proto__'] = { top: 1 };
  (patch.spec as Json)['__proto__'] = { nested: 2 };
  assert.equal(JSON.stringify(patch), '{"__proto__":{"top":1},"spec":{"__proto__":{"nested":2}}}');
  assert.equal(({} as Json).top, undefined);
});
