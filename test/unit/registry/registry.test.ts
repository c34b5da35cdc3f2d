import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorRegistry, subhandlerOf } from '../../../runtime/registry/registry.ts';
import { RegistrationError } from '../../../runtime/registry/ids.ts';
import { matchesChange, prematches, seesChange } from '../../../runtime/registry/filters.ts';
import { ABSENT, PRESENT } from '../../../runtime/registry/markers.ts';
import type { ChangingHandler } from '../../../runtime/registry/handlers.ts';
import type { FilterContext } from '../../../runtime/registry/contexts.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

test('ids come from function names, with Kopf\'s field suffix', () => {
  const r = new OperatorRegistry();
  r.on.create('kex', async function create_fn() {});
  r.on.field('kex', async function field_fn() {}, { field: 'spec.field' });
  r.on.update('kex', async () => {}, { id: 'explicit' });
  assert.deepEqual(r.resourceHandlers.map((h) => h.id), ['create_fn', 'field_fn/spec.field', 'explicit']);
});

test('an anonymous handler without an id is refused with a way to fix it', () => {
  const r = new OperatorRegistry();
  assert.throws(
    () => r.on.create('kex', (() => () => {})()),
    (e: Error) => e instanceof RegistrationError && /named function/.test(e.message),
  );
});

test('two different handlers with one id for one resource are refused', () => {
  const r = new OperatorRegistry();
  r.on.create('kex', async function fn() {});
  assert.throws(() => r.on.update('kex', async function fn() {}), /share the id 'fn'/);
  r.on.create('other', async function fn() {}); // another resource: fine
});

test('delete handlers require a finalizer unless optional', () => {
  const r = new OperatorRegistry();
  r.on.delete('kex', async function mandatory() {});
  r.on.delete('kex', async function optional_one() {}, { optional: true });
  assert.deepEqual(r.resourceHandlers.map((h) => (h as ChangingHandler).requiresFinalizer), [true, false]);
});

const body: KubeObject = { metadata: { labels: { a: '1' }, annotations: { x: 'y' } }, spec: { field: 'v' } };
const ctx = {} as FilterContext<KubeObject>;

test('label and annotation filters: exact, PRESENT, ABSENT, predicates', () => {
  const r = new OperatorRegistry();
  r.on.create('kex', async function f1() {}, { labels: { a: '1' } });
  r.on.create('kex', async function f2() {}, { labels: { a: PRESENT, b: ABSENT } });
  r.on.create('kex', async function f3() {}, { labels: { b: PRESENT } });
  r.on.create('kex', async function f4() {}, { annotations: { x: (v) => v === 'y' } });
  const matching = r.resourceHandlers.filter((h) => prematches((h as ChangingHandler).filters, body, ctx)).map(
    (h) => h.id
  );
  assert.deepEqual(matching, ['f1', 'f2', 'f4']);
});

test('field filters for changes: presence, change, value, old/new', () => {
  const r = new OperatorRegistry();
  r.on.update('kex', async function changed() {}, { field: 'spec.field' });
  r.on.update('kex', async function to_v() {}, { field: 'spec.field', new: 'v' });
  r.on.update('kex', async function from_w() {}, { field: 'spec.field', old: 'w' });
  const hs = r.resourceHandlers as ChangingHandler[];
  const run = (old: unknown, now: unknown) => hs.filter((h) => matchesChange(h.filters, body, old, now, true, ctx)).map(
    (h) => h.id.split('/')[0]
  );
  assert.deepEqual(run({ spec: { field: 'w' } }, { spec: { field: 'v' } }), ['changed', 'to_v', 'from_w']);
  assert.deepEqual(run({ spec: { field: 'v' } }, { spec: { field: 'v' } }), []);
  assert.deepEqual(run({ spec: {} }, { spec: { field: 'u' } }), ['changed']);
});

test('sub-handlers: ids nested under the parent, own options and filters, never a finalizer of their own', () => {
  const r = new OperatorRegistry();
  r.on.delete('kex', async function parent() {});
  const parent = r.resourceHandlers[0] as ChangingHandler;
  const child = subhandlerOf(parent, async function child() {}, { retries: 2, labels: { a: '1' } });
  assert.equal(child.id, 'parent/child');
  assert.equal(child.retries, 2);
  assert.deepEqual(child.reasons, ['delete']);
  assert.equal(child.requiresFinalizer, false);
  assert.equal(prematches(child.filters, body, ctx), true);
  assert.equal(
    prematches(subhandlerOf(parent, async function other() {}, { labels: { a: ABSENT } }).filters, body, ctx),
    false,
  );
  assert.throws(() => subhandlerOf(parent, (() => () => {})()), /register\(\) in 'parent'/);
});

test('filters that may look at the change are known before it is read', () => {
  const r = new OperatorRegistry();
  r.on.create('kex', async function plain() {});
  r.on.create('kex', async function exact_label() {}, { labels: { a: '1', b: PRESENT } });
  r.on.create('kex', async function field_only() {}, { field: 'spec.field' });
  r.on.create('kex', async function label_callback() {}, { labels: { a: (v) => v === '1' } });
  r.on.create('kex', async function annotation_callback() {}, { annotations: { x: () => true } });
  r.on.create('kex', async function field_value() {}, { field: 'spec.field', value: 'v' });
  r.on.create('kex', async function when_fn() {}, { when: () => true });
  const seeing = (r.resourceHandlers as ChangingHandler[]).filter((h) => seesChange(h.filters)).map(
    (h) => h.id.split('/')[0]
  );
  assert.deepEqual(seeing, ['label_callback', 'annotation_callback', 'field_value', 'when_fn']);
});

test('what a handler gets of its object is read-only: changes go into the patch (checked by the type checker)', () => {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, function create_fn({ body, spec, meta, labels, patch, logger }) {
    // @ts-expect-error the object is read-only: this would change nothing on the cluster
    spec.field = 'changed';
    // @ts-expect-error and its metadata
    body.metadata = {};
    // @ts-expect-error and the labels
    labels.app = 'x';
    logger.info(`${meta.name}: ${spec.field} ${spec.items?.join(',')}`); // reading is as before
    const items: string[] = spec.items ?? []; // lists are passed on as they are
    patch.spec.field = 'changed';
    patch.spec.items = [...items, 'item3'];
  });
  assert.equal(registry.resourceHandlers.length, 1);
});

test('login and probe handlers are activities of their own, by Kopf\'s names; ids are unique per activity', () => {
  const r = new OperatorRegistry();
  r.on.login(function login_fn() { return { server: 'https://127.0.0.1:6443' }; });
  r.on.probe(function tasks_count() { return 0; }, { id: 'count' });
  r.on.startup(function count() {});
  assert.deepEqual(
    r.activityHandlers.map((h) => [h.activity, h.id]),
    [['authentication', 'login_fn'], ['probe', 'count'], ['startup', 'count']],
  );
  assert.throws(
    () => r.on.probe(function count() { return 1; }),
    /on\.probe: two activity handlers share the id 'count'/,
  );
  assert.throws(() => r.on.login('not a function' as never), /on\.login: the handler must be a function/);
});
