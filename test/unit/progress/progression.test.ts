import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Outcome } from '../../../runtime/progress/outcomes.ts';
import { deliverResult, HandlerStates } from '../../../runtime/progress/progression.ts';
import { SmartProgressStorage } from '../../../runtime/progress/smart.ts';
import { storedRecordOf } from '../../../runtime/progress/states.ts';
import { Timestamp } from '../../../runtime/progress/timestamps.ts';
import { HandlerChildrenRetry } from '../../../runtime/structs/errors.ts';
import { Patch, patchContent } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { kopfFixture } from './kopf-fixtures.ts';

type Json = { [key: string]: unknown };
interface ProgressionFixture {
  body: KubeObject; now: string; loaded: Json; storeUnchanged: Json; stored: Json; purged: Json;
  summary: {
    done: boolean;
    delays: number[];
    delay: number | null;
    counts: number[];
    extras: Record<string, number[]>
  };
}
interface ResultsFixture { results: { id: string; result: unknown; failed?: boolean; patch: Json; after: Json }[] }
const fixture = kopfFixture<ProgressionFixture>('progression.json');
const results = kopfFixture<ResultsFixture>('patches.json').results;

const log = { level: 'debug', message: '', traceback: false } as const;

test('a cause’s states are loaded, stored where changed, and purged with their sub-handlers as in Kopf', () => {
  const storage = new SmartProgressStorage();
  const now = Timestamp.parse(fixture.now);
  let states = HandlerStates.fromStorage(fixture.body, storage, ['a', 'b', 'c', 'old'], now);
  assert.deepEqual(Object.fromEntries([...states.states].map(([id, s]) => [id, storedRecordOf(s)])), fixture.loaded);

  states = states.withPurpose('create').withHandlers(['a', 'b', 'c'], now);
  const unchanged = new Patch();
  states.store(fixture.body, unchanged, storage);
  assert.deepEqual(patchContent(unchanged), fixture.storeUnchanged, 'only the new handler is stored');

  const outcomes = new Map<string, Outcome>([
    ['c', { final: true, delay: null, result: null, exception: null, subrefs: [], log }],
    [
      'b',
      {
        final: false,
        delay: null,
        result: undefined,
        exception: { error: new HandlerChildrenRetry(null), message: 'None' },
        subrefs: ['b/z'],
        log,
      },
    ],
  ]);
  states = states.withOutcomes(outcomes, now);
  const stored = new Patch();
  states.store(fixture.body, stored, storage);
  assert.deepEqual(patchContent(stored), fixture.stored);

  const purged = new Patch(patchContent(stored));
  states.purge(fixture.body, purged, storage, ['a', 'b', 'c']);
  assert.deepEqual(patchContent(purged), fixture.purged);

  const { summary } = fixture;
  assert.equal(states.done, summary.done);
  assert.deepEqual(states.delays(now), summary.delays);
  assert.equal(states.delay(now), summary.delay);
  assert.deepEqual(Object.values(states.counts), summary.counts);
  assert.deepEqual(
    Object.fromEntries([...states.extras].map(([purpose, c]) => [purpose, Object.values(c)])),
    summary.extras,
  );
  assert.throws(() => states.withOutcomes(new Map([['zzz', outcomes.get('c')!]]), now), /unknown handlers: zzz/);
});

test('done means all active handlers finished; delays count only those still running', () => {
  const now = Timestamp.parse('2026-11-22T00:00:00Z');
  const empty = new HandlerStates();
  assert.equal(empty.done, true);
  assert.equal(empty.delay(now), null);
  const running = empty.withPurpose('update').withHandlers(['x', 'y'], now);
  assert.equal(running.done, false);
  const delayed = running.withOutcomes(new Map<string, Outcome>([
    [
      'x',
      { final: false, delay: 30, result: undefined, exception: { error: null, message: 'later' }, subrefs: [], log },
    ],
  ]), now);
  assert.deepEqual(delayed.delays(now.plus(10)), [20, 0]);
  assert.equal(delayed.get('x')!.purpose, 'update');
  assert.deepEqual(delayed.withoutSuccesses().purpose, null);
});

test('handler results are delivered to status as Kopf delivers them', () => {
  for (const r of results) {
    const patch = new Patch(r.patch);
    deliverResult(patch, r.id, { result: r.result, exception: r.failed ? { error: null, message: 'x' } : null });
    assert.deepEqual(patchContent(patch), r.after, JSON.stringify(r));
  }
});
