import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkLimits, errorText, handlerTitle, outcomeOf, withOutcome, type Attempt, type RetryPolicy,
} from '../../../runtime/progress/outcomes.ts';
import { freshState, recordOf, type HandlerState } from '../../../runtime/progress/states.ts';
import { Timestamp } from '../../../runtime/progress/timestamps.ts';
import {
  HandlerChildrenRetry,
  PermanentError,
  TemporaryError,
  type ErrorsMode,
} from '../../../runtime/structs/errors.ts';
import { kopfFixture } from './kopf-fixtures.ts';
import type { ProgressRecord } from '../../../runtime/progress/records.ts';

type Behaviour =
  | { kind: 'success'; result: unknown }
  | { kind: 'temporary'; message: string; delay: number | null }
  | { kind: 'permanent' | 'arbitrary'; message: string }
  | { kind: 'children'; delay: number | null };
interface OutcomeCase {
  options: { errors?: string; timeout?: number; retries?: number; backoff?: number };
  situation: { retries: number; runtime: number };
  behaviour: Behaviour;
  now: string;
  outcome: { final: boolean; delay: number | null; result: unknown; exception: string | null; message: string | null };
  record: ProgressRecord;
  logs: { level: string; message: string; traceback: boolean }[];
}
const cases = kopfFixture<OutcomeCase[]>('outcomes.json');
const BASETIME = Timestamp.parse('2026-11-22T03:18:01.949187+00:00');

class ValueError extends Error {
  constructor(message = '') { super(message); this.name = 'ValueError'; }
}

function attemptOf(behaviour: Behaviour): Attempt {
  switch (behaviour.kind) {
    case 'success': return { ok: true, result: behaviour.result };
    case 'temporary': return { ok: false, error: new TemporaryError(behaviour.message, { delay: behaviour.delay }) };
    case 'permanent': return { ok: false, error: new PermanentError(behaviour.message) };
    case 'arbitrary': return { ok: false, error: new ValueError(behaviour.message) };
    case 'children': return { ok: false, error: new HandlerChildrenRetry(behaviour.delay) };
  }
}

test('outcomes, records and log lines are Kopf’s for every option, situation and behaviour', () => {
  assert.ok(cases.length > 500);
  for (const c of cases) {
    const where = JSON.stringify({ options: c.options, situation: c.situation, behaviour: c.behaviour });
    const policy: RetryPolicy = {
      timeout: c.options.timeout ?? null,
      retries: c.options.retries ?? null,
      backoff: c.options.backoff ?? 60,
      errors: (c.options.errors?.toLowerCase() ?? 'temporary') as ErrorsMode,
    };
    const state: HandlerState = {
      ...freshState(BASETIME, 'create'),
      retries: c.situation.retries,
      subrefs: ['fn/old'],
    };
    const now = Timestamp.parse(c.now);
    const title = handlerTitle('fn');
    const outcome = checkLimits(title, state, policy, now) ?? outcomeOf(
      title,
      attemptOf(c.behaviour),
      state,
      policy,
      now,
    );
    assert.equal(outcome.final, c.outcome.final, where);
    assert.equal(outcome.delay, c.outcome.delay, where);
    assert.deepEqual(outcome.result ?? null, c.outcome.result, where);
    assert.equal(outcome.exception?.message ?? null, c.outcome.message, where);
    assert.equal(
      outcome.exception === null ? null : (outcome.exception.error as Error).name,
      c.outcome.exception,
      where,
    );
    assert.deepEqual(recordOf(withOutcome(state, outcome, now)), c.record, where);
    assert.deepEqual([outcome.log], c.logs, where);
  }
});

test('handler titles quote ids as Python does', () => {
  assert.equal(handlerTitle('create_fn'), "Handler 'create_fn'");
  assert.equal(handlerTitle('fn/item', 'Daemon'), "Daemon 'fn/item'");
  assert.equal(handlerTitle("it's"), `Handler "it's"`);
});

test('error texts: the message is stored; an empty one shows as the error’s name', () => {
  assert.deepEqual(errorText(new PermanentError('')), { message: '', shown: 'PermanentError()' });
  assert.deepEqual(errorText(new TemporaryError('later')), { message: 'later', shown: 'later' });
  assert.deepEqual(errorText('thrown text'), { message: 'thrown text', shown: 'thrown text' });
});

test('sub-handler ids accumulate, sorted and without duplicates', () => {
  const state = { ...freshState(BASETIME), subrefs: ['fn/b'] };
  const outcome = outcomeOf(
    handlerTitle('fn'),
    { ok: true, result: null, subrefs: ['fn/a', 'fn/b'] },
    state,
    { backoff: 60, errors: 'temporary' },
    BASETIME,
  );
  assert.deepEqual(withOutcome(state, outcome, BASETIME).subrefs, ['fn/a', 'fn/b']);
});

test('a stop time, once set, stays; a success clears the delay', () => {
  const stopped = BASETIME.plus(5);
  const state = { ...freshState(BASETIME), stopped, delayed: BASETIME.plus(1), retries: 2 };
  const policy: RetryPolicy = { backoff: 60, errors: 'temporary' };
  const later = BASETIME.plus(60);
  const retried = withOutcome(
    state,
    outcomeOf(handlerTitle('fn'), { ok: false, error: new TemporaryError('x', { delay: 1 }) }, state, policy, later),
    later,
  );
  assert.equal(retried.stopped, stopped);
  assert.equal(retried.delayed?.toIso(), later.plus(1).toIso());
  const succeeded = withOutcome(
    state,
    outcomeOf(handlerTitle('fn'), { ok: true, result: 1 }, state, policy, later),
    later,
  );
  assert.deepEqual(
    [succeeded.stopped, succeeded.delayed, succeeded.success, succeeded.retries],
    [stopped, null, true, 3],
  );
});
