/**
 * What a merge patch set but the object does not show afterwards is reported as Kopf reports it
 * ("Merge-patching finished with inconsistencies"), with Kopf's exceptions. Field paths seen kept
 * are not checked again until the record is dropped, and the engine's own bookkeeping (annotations
 * only) is never asked back whole to be checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { KeptFields, mergeInconsistencies } from '../../../runtime/actions/inconsistencies.ts';
import { AnnotationsProgressStorage } from '../../../runtime/progress/index.ts';
import { FRESH, processOnce } from '../processing/processor.ts';

const WHOLE = 'application/json';

test('fields set and absent afterwards are removals; removed and present, additions; other values, changes', () => {
  const patch = { spec: { kept: 1, pruned: 'x', changed: 'a', gone: null }, status: { result: { message: 'hi' } } };
  const body = { metadata: { name: 'x' }, spec: { kept: 1, changed: 'b', gone: 'still', extra: true }, status: {} };
  assert.deepEqual(mergeInconsistencies(patch, body), [
    ['remove', ['spec', 'pruned'], 'x', null],
    ['change', ['spec', 'changed'], 'a', 'b'],
    ['add', ['spec', 'gone'], null, 'still'],
    ['remove', ['status', 'result'], { message: 'hi' }, null],
  ]);
});

test('a consistent result, and fields of the object the patch did not name, give nothing', () => {
  const patch = {
    metadata: { annotations: { a: '1', b: null } },
    status: { create_fn: { message: 'hi' }, list: [1, 2] },
  };
  const body = {
    metadata: { annotations: { a: '1', other: '2' }, resourceVersion: '5' },
    spec: { x: 1 },
    status: { create_fn: { message: 'hi' }, list: [1, 2], more: 3 },
  };
  assert.deepEqual(mergeInconsistencies(patch, body), []);
});

test('empty annotations, labels and finalizers that vanish are no loss; an empty field elsewhere is', () => {
  const patch = { metadata: { annotations: {}, labels: {}, finalizers: [] }, spec: { list: [], map: {} } };
  assert.deepEqual(mergeInconsistencies(patch, { metadata: {}, spec: {} }), [
    ['remove', ['spec', 'list'], [], null],
    ['remove', ['spec', 'map'], {}, null],
  ]);
  // Not empty: reported, wherever it is.
  assert.deepEqual(
    mergeInconsistencies({ metadata: { finalizers: ['f'] } }, { metadata: {} }),
    [['remove', ['metadata', 'finalizers'], ['f'], null]],
  );
});

test('the patch is compared as it was sent: undefined fields were not sent, dates went as text', () => {
  const when = new Date(0);
  assert.deepEqual(
    mergeInconsistencies(
      { status: { skipped: undefined, when } },
      { status: { skipped: 'x', when: '1970-01-01T00:00:00.000Z' } },
    ),
    [],
  );
});

test('annotations and labels with text (or removals) are never to be checked: they are kept or refused', () => {
  const kept = new KeptFields();
  assert.deepEqual(kept.unconfirmed({ metadata: { annotations: { a: 'x', b: null }, labels: { l: 'v' } } }), []);
  assert.deepEqual(kept.unconfirmed({ metadata: { annotations: null } }), []);
  assert.deepEqual(kept.unconfirmed({}), []);
  assert.deepEqual(
    kept.unconfirmed({ metadata: { annotations: { a: 1 } } }),
    [['metadata', 'annotations', 'a']],
    'a number is refused or kept as the server likes',
  );
  assert.deepEqual(kept.unconfirmed({ metadata: { ownerReferences: [] } }), [['metadata', 'ownerReferences']]);
  assert.deepEqual(kept.unconfirmed({ spec: null }), [['spec']]);
});

test('paths seen kept are not checked again; new paths, and the fields of list items, are', () => {
  const kept = new KeptFields();
  const result = { status: { create_fn: { message: 'hi', items: [{ a: 1 }, { a: 2, b: 3 }], tags: ['x', 'y'] } } };
  const paths = kept.unconfirmed(result);
  assert.deepEqual(
    paths,
    [
      ['status', 'create_fn', 'message'],
      ['status', 'create_fn', 'items', 0, 'a'],
      ['status', 'create_fn', 'items', 0, 'b'],
      ['status', 'create_fn', 'tags', 0],
    ],
  );
  kept.confirm(paths);
  assert.deepEqual(kept.unconfirmed({ status: { create_fn: { message: 'another', items: [{ b: 0 }] } } }), []);
  assert.deepEqual(
    kept.unconfirmed({ status: { create_fn: { message: { nested: true } } } }),
    [['status', 'create_fn', 'message', 'nested']],
  );
  assert.deepEqual(kept.unconfirmed({ status: { create_fn: 'text' } }), [['status', 'create_fn']]);
});

test('the kept paths are forgotten when there are too many', () => {
  const kept = new KeptFields();
  kept.confirm(kept.unconfirmed({ status: { first: 1 } }));
  for (let n = 0; n < 300; n++) kept.confirm(kept.unconfirmed({ status: { [`f${n}`]: 1 } }));
  assert.deepEqual(kept.unconfirmed({ status: { first: 1 } }), [['status', 'first']]);
});

test('the kept paths are forgotten after ten minutes, so that a changed schema is noticed', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 0 });
  const kept = new KeptFields();
  kept.confirm(kept.unconfirmed({ status: { first: 1 } }));
  t.mock.timers.tick(10 * 60_000);
  assert.deepEqual(kept.unconfirmed({ status: { first: 1 } }), [], 'still kept at ten minutes');
  t.mock.timers.tick(1);
  assert.deepEqual(kept.unconfirmed({ status: { first: 1 } }), [['status', 'first']]);
});

test('a result the API server drops from the status is reported word for word for every object, and the cycle goes ' +
  'on', async () => {
  const kept = new KeptFields();
  for (const name of ['first', 'second']) {
    const { messages } = await processOnce((registry) => {
      registry.on.create(KopfExample, function create_fn() { return { message: 'hello world' }; });
    },
    { ...FRESH, metadata: { ...FRESH.metadata, name } },
    {},
    { kept, prune: (object) => { delete (object.status as { create_fn?: unknown } | undefined)?.create_fn; } });
    const warnings = messages.filter((m) => m.startsWith('Merge-patching finished with inconsistencies'));
    assert.deepEqual(
      warnings,
      [
        'Merge-patching finished with inconsistencies: [["remove",["status","create_fn"],{"message":"hello ' +
          'world"},null]]'
      ],
      messages.join('\n'),
    );
    assert.ok(messages.includes('Creation is processed: 1 succeeded; 0 failed.'), messages.join('\n'));
  }
});

test('a result kept as sent gives no warning; the last patch (the records, after the result) asks for the whole ' +
  'object until its fields were seen kept', async () => {
  const kept = new KeptFields();
  const asked: string[][][] = [];
  for (const name of ['first', 'second']) {
    const { messages, requests } = await processOnce((registry) => {
      registry.on.create(KopfExample, function create_fn() { return { message: 'hello world' }; });
    },
    { ...FRESH, metadata: { ...FRESH.metadata, name } },
    { progressStorage: new AnnotationsProgressStorage() },
    { kept });
    assert.ok(!messages.some((m) => m.startsWith('Merge-patching finished')), messages.join('\n'));
    const merges = requests.filter((r) => r.headers['content-type'] === 'application/merge-patch+json');
    asked.push(
      merges.map(
        (r) => [r.path.endsWith('/status') ? 'status' : 'object', r.headers.accept === WHOLE ? 'whole' : 'metadata']
      )
    );
  }
  assert.deepEqual(
    asked,
    [[['status', 'metadata'], ['object', 'whole']], [['status', 'metadata'], ['object', 'metadata']]],
  );
});
