/**
 * What handlers return is stored as JSON; what JSON cannot carry fails the handler itself, by its
 * `errors` mode, before anything is written — not the patch after the handler's success was; and
 * what handlers throw is described even when it is not an Error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { storableResult } from '../../../runtime/progress/index.ts';
import { FRESH, processOnce } from './processor.ts';

type Json = { [key: string]: unknown };

/** The progress record of a handler, from the patches that carry annotations. */
function recordOf(patches: unknown[], id: string): Json | undefined {
  for (const patch of patches) {
    const text = ((patch as Json).metadata as { annotations?: Json } | undefined)?.annotations?.[
      `kopf.zalando.org/${id}`
    ];
    if (typeof text === 'string') return JSON.parse(text) as Json;
  }
  return undefined;
}

/** The `status` fields sent, merged from all patches. */
function statusOf(patches: unknown[]): Json {
  return Object.assign({}, ...patches.map((patch) => (patch as Json).status ?? {})) as Json;
}

test('results are what JSON makes of them: no undefined fields, no functions, dates as text', () => {
  assert.deepEqual(
    storableResult({ keep: 1, drop: undefined, fn: () => 1, when: new Date(0), list: [undefined, 2] }),
    { keep: 1, when: '1970-01-01T00:00:00.000Z', list: [null, 2] },
  );
  assert.equal(storableResult(undefined), undefined);
  assert.equal(storableResult(() => 1), undefined);
  assert.equal(storableResult('text'), 'text');
  assert.throws(
    () => storableResult({ big: 10n }),
    { name: 'TypeError', message: 'The result cannot be stored as JSON: Do not know how to serialize a BigInt' },
  );
  const cycle: Json = {};
  cycle.self = cycle;
  assert.throws(
    () => storableResult(cycle),
    { message: 'The result cannot be stored as JSON: Converting circular structure to JSON' },
  );
});

test('a result JSON cannot carry fails the handler, which is retried as for any error; nothing reaches the ' +
  'status', async () => {
  const { patches, messages } = await processOnce((registry) => {
    registry.on.create(KopfExample, function bigint_fn() { return { big: 10n } as unknown as Json; });
  }, FRESH);
  const record = recordOf(patches, 'bigint_fn');
  assert.equal(record?.success, false);
  assert.equal(record?.failure, false);
  assert.equal(record?.retries, 1);
  assert.equal(record?.message, 'The result cannot be stored as JSON: Do not know how to serialize a BigInt');
  assert.deepEqual(statusOf(patches), {});
  assert.ok(
    messages.includes(
      "Handler 'bigint_fn' failed with an exception and will try again in 60 seconds: The result cannot be stored " +
        "as JSON: Do not know how to serialize a BigInt"
    ),
    messages.join('\n'),
  );
});

test('a handler with `errors: permanent` fails for good on such a result', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(
      KopfExample,
      function cycle_fn() { const a: Json = {}; a.self = a; return a; },
      { errors: 'permanent' },
    );
  }, FRESH);
  assert.equal(recordOf(patches, 'cycle_fn'), undefined, 'a finished cycle purges its records');
  assert.deepEqual(statusOf(patches), {});
  assert.ok(
    patches.some(
      (patch) => typeof ((patch as Json).metadata as { annotations?: Json } | undefined)?.annotations?.[
        'kopf.zalando.org/last-handled-configuration'
      ] === 'string'
    ),
    'the cycle is done: the diff-base is stored',
  );
});

test('a storable result arrives in the status as JSON', async () => {
  const { patches } = await processOnce((registry) => {
    registry.on.create(
      KopfExample,
      function create_fn() { return { keep: 1, drop: undefined, fn: () => 1, when: new Date(0) }; },
    );
  }, FRESH);
  assert.deepEqual(statusOf(patches), { create_fn: { keep: 1, when: '1970-01-01T00:00:00.000Z' } });
});

test('a thrown value that is not an Error is described, not shown as [object Object]', async () => {
  const { patches, messages } = await processOnce((registry) => {
    registry.on.create(KopfExample, function throws_fn() { throw { code: 42 }; });
  }, FRESH);
  assert.equal(recordOf(patches, 'throws_fn')?.message, '{ code: 42 }');
  assert.ok(
    messages.includes("Handler 'throws_fn' failed with an exception and will try again in 60 seconds: { code: 42 }"),
    messages.join('\n'),
  );
});

test('a status patch JSON cannot carry sends nothing at all: not the handler’s success without it', async () => {
  const { patches, messages } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn({ patch }) { (patch.status as Json).count = 10n; });
  }, FRESH);
  assert.deepEqual(patches, []);
  assert.ok(
    messages.some(
      (m) => m.startsWith(
        'Throttling for 1 seconds due to an unexpected error: The patch of the status cannot be sent as JSON: Do ' +
          'not know how to serialize a BigInt'
      )
    ),
    messages.join('\n'),
  );
});
