import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnotationsProgressStorage } from '../../../runtime/progress/annotations.ts';
import { decodeRecord, encodeRecord, RECORD_FIELDS, type ProgressRecord } from '../../../runtime/progress/records.ts';
import { UnreadableStateError } from '../../../runtime/progress/unreadable.ts';
import {
  freshState,
  hasChanged,
  isAwakened,
  isFinished,
  isSleeping,
  recordOf,
  sortedIds,
  stateFromRecord,
  storedRecordOf,
  type HandlerState,
} from '../../../runtime/progress/states.ts';
import { StatusProgressStorage } from '../../../runtime/progress/status.ts';
import { Timestamp } from '../../../runtime/progress/timestamps.ts';
import { Patch, patchContent } from '../../../runtime/structs/patches.ts';
import { kopfFixture } from './kopf-fixtures.ts';

type Json = { [key: string]: unknown };
interface RecordsFixture {
  states: {
    state: Json;
    record: ProgressRecord;
    pure: ProgressRecord;
    annotations: Json;
    verbose: Json;
    status: Json
  }[];
  loaded: { origin: ProgressRecord; now: string; pure: ProgressRecord; changed: boolean; finished: boolean }[];
}
const fixture = kopfFixture<RecordsFixture>('records.json');
const BASETIME = Timestamp.parse('2026-11-22T03:18:01.949187+00:00');

function stateOf(fields: Json): HandlerState {
  const time = (key: string) => (typeof fields[key] === 'string' ? Timestamp.parse(fields[key] as string) : null);
  return {
    ...freshState(time('started') ?? BASETIME, (fields.purpose as string | undefined) ?? null),
    stopped: time('stopped'),
    delayed: time('delayed'),
    retries: (fields.retries as number | undefined) ?? 0,
    success: (fields.success as boolean | undefined) ?? false,
    failure: (fields.failure as boolean | undefined) ?? false,
    message: (fields.message as string | undefined) ?? null,
    subrefs: (fields.subrefs as string[] | undefined) ?? [],
  };
}

function stored(storage: AnnotationsProgressStorage | StatusProgressStorage, record: ProgressRecord): Json {
  const patch = new Patch();
  storage.store('fn', record, {}, patch);
  return patchContent(patch);
}

test('records are Kopf’s, key by key and byte by byte, compact and verbose', () => {
  assert.ok(fixture.states.length >= 10);
  for (const c of fixture.states) {
    const state = stateOf(c.state);
    const record = recordOf(state);
    assert.deepEqual(record, c.record);
    assert.deepEqual(Object.keys(record), [...RECORD_FIELDS], 'Kopf’s key order');
    assert.deepEqual(storedRecordOf(state), c.pure);
    assert.deepEqual(stored(new AnnotationsProgressStorage(), record), c.annotations);
    assert.deepEqual(stored(new AnnotationsProgressStorage({ verbose: true }), record), c.verbose);
    assert.deepEqual(stored(new StatusProgressStorage(), record), c.status);
  }
});

test('records read from Kopf keep their values; changes are detected as Kopf detects them', () => {
  for (const c of fixture.loaded) {
    const state = stateFromRecord(c.origin, Timestamp.parse(c.now));
    assert.deepEqual(storedRecordOf(state), c.pure, JSON.stringify(c.origin));
    assert.equal(hasChanged(state), c.changed, JSON.stringify(c.origin));
    assert.equal(isFinished(state), c.finished, JSON.stringify(c.origin));
    assert.equal(state.active, false);
  }
});

test('a Kopf-written record survives a read and a write unchanged', () => {
  const text =
    '{"started":"2026-11-22T03:18:01.949187+00:00","delayed":"2026-11-22T03:19:01.000001+00:00","purpose":"create",' +
      '"retries":1,"success":false,"failure":false,"message":"not yet","subrefs":["fn/a","fn/b"]}';
  const state = stateFromRecord(decodeRecord(text)!, BASETIME);
  assert.equal(hasChanged(state), false);
  assert.equal(encodeRecord(recordOf(state)), text);
});

test('decoding takes objects only; encoding omits nulls unless verbose', () => {
  assert.equal(decodeRecord('null'), null);
  assert.throws(() => decodeRecord('5'), UnreadableStateError);
  assert.deepEqual(decodeRecord('{"retries":1}'), { retries: 1 });
  assert.throws(() => decodeRecord('{'), UnreadableStateError);
  assert.equal(encodeRecord({ started: 'x', stopped: null, message: 'é' }), '{"started":"x","message":"\\u00e9"}');
  assert.equal(encodeRecord({ started: 'x', stopped: null }, true), '{"started":"x","stopped":null}');
});

test('sleeping and awakened states', () => {
  const now = BASETIME;
  const waiting = { ...freshState(now), delayed: now.plus(10) };
  assert.ok(isSleeping(waiting, now) && !isAwakened(waiting, now));
  assert.ok(!isSleeping(waiting, now.plus(10)) && isAwakened(waiting, now.plus(10)));
  const done = { ...waiting, success: true };
  assert.ok(!isSleeping(done, now) && !isAwakened(done, now));
});

test('ids sort by code points, as Python sorts them', () => {
  assert.deepEqual(sortedIds(['b', 'a', '\uffff', '🎉', 'A']), ['A', 'a', 'b', '\uffff', '🎉']);
});
