import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectCause, type CauseInput } from '../../../runtime/processing/causes.ts';

const base: CauseInput = {
  type: 'MODIFIED',
  deleting: false,
  hasFinalizer: true,
  hasDiffBase: true,
  changed: true,
  initial: false,
};

test('a DELETED event is "gone" whatever else is true', () => {
  assert.equal(detectCause({ ...base, type: 'DELETED', deleting: true, hasDiffBase: false }), 'gone');
});

test('deletion without our finalizer is "free"; with it, "delete"', () => {
  assert.equal(detectCause({ ...base, deleting: true, hasFinalizer: false }), 'free');
  assert.equal(detectCause({ ...base, deleting: true }), 'delete');
  assert.equal(detectCause({ ...base, deleting: true, hasDiffBase: false }), 'delete');
});

test('no diff-base means never handled: "create", even on first sight in a listing', () => {
  assert.equal(detectCause({ ...base, hasDiffBase: false }), 'create');
  assert.equal(detectCause({ ...base, type: null, hasDiffBase: false, initial: true, changed: false }), 'create');
});

test('unchanged essence: "resume" on first sight, "noop" afterwards', () => {
  assert.equal(detectCause({ ...base, type: null, changed: false, initial: true }), 'resume');
  assert.equal(detectCause({ ...base, changed: false, initial: false }), 'noop');
});

test('changed essence is an update, also on first sight', () => {
  assert.equal(detectCause({ ...base, changed: true, initial: true }), 'update');
  assert.equal(detectCause(base), 'update');
});
