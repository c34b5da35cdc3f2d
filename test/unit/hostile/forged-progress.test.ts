/**
 * Progress supplied by whoever creates an object: a `last-handled-configuration` or a handler's
 * `success` record in the annotations makes the operator take the object as handled, as Kopf 1.44
 * does (both trust what the object says of its own handling). docs/security.md says so, and what
 * an admission policy can do about it; this pins the behaviour it documents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { FRESH, processOnce } from '../processing/processor.ts';

const PREFIX = 'kopf.zalando.org';

/** FRESH, created with these annotations. */
function createdWith(annotations: Record<string, string>): KubeObject {
  return { ...FRESH, metadata: { ...FRESH.metadata, annotations } };
}

async function createCalls(body: KubeObject): Promise<{ calls: number; messages: string[] }> {
  let calls = 0;
  const { messages } = await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { calls++; });
  }, body);
  return { calls, messages };
}

test('an object created with its own diff-base is taken as handled: the create handler does not run', async () => {
  const forged = createdWith({ [`${PREFIX}/last-handled-configuration`]: '{"spec":{"field":"v"}}\n' });
  assert.equal((await createCalls(forged)).calls, 0);
  assert.equal((await createCalls(FRESH)).calls, 1, 'without it, the handler runs');
});

test('an object created with a diff-base that differs from it is handled as updated, not created', async () => {
  const calls: string[] = [];
  await processOnce((registry) => {
    registry.on.create(KopfExample, function create_fn() { calls.push('create'); });
    registry.on.update(KopfExample, function update_fn() { calls.push('update'); });
  }, createdWith({ [`${PREFIX}/last-handled-configuration`]: '{"spec":{"field":"other"}}\n' }));
  assert.deepEqual(calls, ['update']);
});

test('an object created with a success record of a handler: that handler does not run', async () => {
  const record = '{"started":"2020-01-01T00:00:00.000000","stopped":"2020-01-01T00:00:00.000000",'
    + '"purpose":"create","retries":1,"success":true,"failure":false}';
  const { calls, messages } = await createCalls(createdWith({ [`${PREFIX}/create_fn`]: record }));
  assert.equal(calls, 0);
  assert.ok(messages.some((m) => m.includes('Creation is processed')), messages.join('\n'));
});
