/**
 * A progress record or a diff-base that someone else wrote and that cannot be read stops the
 * handling of that object, and only of it: the handlers do not run on a guess, nothing is written,
 * an error names the annotation, and the object is not retried on a timer (retrying cannot mend
 * it) but waits for its next change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { ERROR } from '../../../runtime/logging/index.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { FRESH, processOnce } from './processor.ts';

const withAnnotation = (key: string, value: string): KubeObject => ({
  ...FRESH, metadata: { ...FRESH.metadata, annotations: { [key]: value } },
});

for (const [what, key, value, expected] of [
  [
    'progress record',
    'kopf.zalando.org/create_fn',
    '{"retries":"many"}',
    /^The annotation kopf\.zalando\.org\/create_fn is not a progress record: retries must be a number\. /,
  ],
  [
    'diff-base',
    'kopf.zalando.org/last-handled-configuration',
    'not json',
    /^The annotation kopf\.zalando\.org\/last-handled-configuration is not valid JSON\. /,
  ],
] as const) {
  test(`an unreadable ${what} is reported once, naming the annotation and the object; no handler runs`, async () => {
    let calls = 0;
    const { patches, records } = await processOnce((registry) => {
      registry.on.create(KopfExample, function create_fn() { calls++; });
      registry.on.update(KopfExample, function update_fn() { calls++; });
    }, withAnnotation(key, value));
    assert.equal(calls, 0, 'no handler ran');
    assert.deepEqual(patches, [], 'nothing was written');
    const errors = records.filter((record) => record.level >= ERROR);
    assert.equal(errors.length, 1, records.map((record) => record.message).join('\n'));
    assert.match(errors[0]!.message, expected);
    assert.deepEqual(
      errors[0]!.ref,
      { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'x', uid: 'u1', namespace: 'default' },
    );
    assert.ok(!records.some((record) => record.message.startsWith('Throttling')), 'not retried on a timer');
  });
}
