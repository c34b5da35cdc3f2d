/**
 * Progress records and diff-bases are read from the object, where anyone with write access may
 * have put anything: what cannot be read is refused with an error that names the annotation or
 * the field, says what removing it does, and never quotes the value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnotationsProgressStorage } from '../../../runtime/progress/annotations.ts';
import { AnnotationsDiffBaseStorage, StatusDiffBaseStorage } from '../../../runtime/progress/diffbase.ts';
import { SmartProgressStorage } from '../../../runtime/progress/smart.ts';
import { StatusProgressStorage } from '../../../runtime/progress/status.ts';
import { UnreadableStateError } from '../../../runtime/progress/unreadable.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';

const annotated = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'x', annotations } });

/** The error the call throws, checked to be an `UnreadableStateError` that quotes nothing of the value. */
function refusal(call: () => unknown, value: string): UnreadableStateError {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof UnreadableStateError, String(error));
    assert.ok(!error.message.includes(value), `the value is not quoted: ${error.message}`);
    return error;
  }
  assert.fail('the value was accepted');
}

test('a progress annotation that is not JSON, or not a record, is refused naming the annotation', () => {
  const storage = new SmartProgressStorage();
  const cases: [string, RegExp][] = [
    ['FORGED{', /is not valid JSON\./],
    ['["FORGED"]', /is not a progress record: a JSON object is expected\./],
    ['"FORGED"', /is not a progress record: a JSON object is expected\./],
    ['{"retries":"FORGED"}', /is not a progress record: retries must be a number\./],
    ['{"retries":1e999}', /is not a progress record: retries must be a number\./],
    ['{"subrefs":"FORGED"}', /is not a progress record: subrefs must be a list of strings\./],
    ['{"subrefs":[5]}', /is not a progress record: subrefs must be a list of strings\./],
    ['{"started":"FORGED"}', /is not a progress record: started must be an ISO 8601 time\./],
    ['{"delayed":5}', /is not a progress record: delayed must be an ISO 8601 time\./],
    ['{"success":"FORGED"}', /is not a progress record: success must be a boolean\./],
    ['{"message":{"FORGED":1}}', /is not a progress record: message must be a string\./],
  ];
  for (const [value, problem] of cases) {
    const error = refusal(
      () => storage.fetch('create_fn', annotated({ 'kopf.zalando.org/create_fn': value })),
      'FORGED',
    );
    assert.match(error.message, /^The annotation kopf\.zalando\.org\/create_fn /);
    assert.match(error.message, problem);
    assert.match(error.message, /Fix or remove it to let the handling go on \(removed, the handler starts afresh\)\.$/);
    assert.equal(error.where, 'annotation kopf.zalando.org/create_fn');
  }
});

test('records as Kopf writes them, unknown fields and JSON nulls included, are read', () => {
  const storage = new AnnotationsProgressStorage();
  const record = {
    started: '2026-11-22T03:18:01.949187+00:00',
    stopped: null,
    delayed: '2026-11-22T03:19:01.949187',
    purpose: 'create',
    retries: 2, success: false, failure: false, message: 'Not yet.', subrefs: ['a/b'], future: { any: 'thing' },
  };
  assert.deepEqual(
    storage.fetch('create_fn', annotated({ 'kopf.zalando.org/create_fn': JSON.stringify(record) })),
    record,
  );
  assert.equal(storage.fetch('create_fn', annotated({ 'kopf.zalando.org/create_fn': 'null' })), null);
});

test('a legacy status record of the wrong shape is refused naming its field', () => {
  const body = {
    metadata: { name: 'x' },
    status: { kopf: { progress: { create_fn: { retries: 'FORGED' }, other: 'FORGED' } } },
  };
  const storage = new StatusProgressStorage();
  assert.match(
    refusal(() => storage.fetch('create_fn', body), 'FORGED').message,
    /^The field status\.kopf\.progress\.create_fn is not a progress record: retries must be a number\./,
  );
  assert.match(
    refusal(() => storage.fetch('other', body), 'FORGED').message,
    /^The field status\.kopf\.progress\.other is not a progress record: a JSON object is expected\./,
  );
  assert.equal(storage.fetch('absent', body), null);
});

test('a diff-base that is not JSON, or not an object, is refused naming the annotation or the field', () => {
  const annotations = new AnnotationsDiffBaseStorage();
  const key = 'kopf.zalando.org/last-handled-configuration';
  for (const value of ['FORGED{', '["FORGED"]', '"FORGED"']) {
    const error = refusal(() => annotations.fetch(annotated({ [key]: value })), 'FORGED');
    assert.match(
      error.message,
      /^The annotation kopf\.zalando\.org\/last-handled-configuration is not (valid JSON|a diff-base: a JSON object is expected)\./, // lint-ignore: a regular expression cannot wrap
    );
    assert.match(error.message, /\(removed, the object looks new and its creation handlers run\)\.$/);
  }
  assert.equal(annotations.fetch(annotated({ [key]: 'null\n' })), null);
  assert.deepEqual(annotations.fetch(annotated({ [key]: '{"spec":{"a":1}}\n' })), { spec: { a: 1 } });

  const status = new StatusDiffBaseStorage();
  const inStatus = (value: unknown): KubeObject => (
    { metadata: { name: 'x' }, status: { kopf: { 'last-handled-configuration': value } } }
  );
  assert.match(
    refusal(() => status.fetch(inStatus('FORGED{')), 'FORGED').message,
    /^The field status\.kopf\.last-handled-configuration is not valid JSON\./,
  );
  assert.match(
    refusal(() => status.fetch(inStatus({ FORGED: 1 })), 'FORGED').message,
    /^The field status\.kopf\.last-handled-configuration is not a string of JSON\./,
  );
  assert.deepEqual(status.fetch(inStatus('{"spec":{}}')), { spec: {} });
});
