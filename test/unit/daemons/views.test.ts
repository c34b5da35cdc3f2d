/**
 * The live views of an object's parts that timers and daemons get: refilled in place, they behave
 * as plain objects for everything that reads them, and refuse writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { LiveViews } from '../../../runtime/daemons/views.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';

const FIRST: KubeObject = { metadata: { name: 'x', labels: { a: '1' } }, spec: { size: 1, keep: true } };
const SECOND: KubeObject = {
  metadata: { name: 'x', annotations: { b: '2' } },
  spec: { size: 2 },
  status: { ok: true },
};

test('a view handed out once shows every later body, as printing, spreading, JSON and cloning see it', () => {
  const views = new LiveViews(FIRST);
  const { spec, labels, annotations, status, meta, body } = views;
  assert.deepEqual({ ...spec }, { size: 1, keep: true });
  views.refresh(SECOND);
  assert.equal(spec.size, 2);
  assert.equal('keep' in spec, false, 'a field gone from the object is gone from the view');
  assert.deepEqual(Object.keys(spec), ['size']);
  assert.equal(JSON.stringify(spec), '{"size":2}');
  assert.deepEqual(structuredClone(spec), { size: 2 });
  assert.equal(inspect(spec), '{ size: 2 }');
  assert.deepEqual({ ...labels }, {});
  assert.deepEqual({ ...annotations }, { b: '2' });
  assert.deepEqual({ ...status }, { ok: true });
  assert.equal(meta.name, 'x');
  assert.deepEqual(body.spec, { size: 2 });
  views.refresh({ metadata: { name: 'x' } });
  assert.deepEqual([{ ...spec }, { ...status }], [{}, {}], 'an object without a spec or a status shows empty ones');
});

test('the fields of a view are read-only; a key such as __proto__ from the cluster stays a plain field', () => {
  const views = new LiveViews(JSON.parse('{"spec": {"size": 1, "__proto__": {"polluted": true}}}') as KubeObject);
  assert.throws(() => { (views.spec as Record<string, unknown>).size = 5; }, TypeError);
  assert.equal(views.spec.size, 1);
  assert.equal(Object.getPrototypeOf(views.spec), Object.prototype);
  assert.equal((views.spec as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(views.spec), ['size', '__proto__']);
});
