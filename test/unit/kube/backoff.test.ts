import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter, repeatingDelay, retryDelay, sleep } from '../../../runtime/kube/backoff.ts';

test('delays follow the schedule within ±20% jitter, and end with it', () => {
  const schedule = [1, 2, 3];
  assert.equal(retryDelay(schedule, 0, { random: () => 0 }), 800);
  assert.equal(retryDelay(schedule, 1, { random: () => 0.5 }), 2000);
  assert.equal(retryDelay(schedule, 2, { random: () => 1 }), 3600);
  assert.equal(retryDelay(schedule, 3, { random: () => 0.5 }), undefined);
  assert.equal(retryDelay([], 0), undefined);
});

test('Retry-After is a floor, or the delay itself when enforced', () => {
  assert.equal(retryDelay([1], 0, { retryAfter: 5, random: () => 0.5 }), 5000);
  assert.equal(retryDelay([10], 0, { retryAfter: 5, random: () => 0.5 }), 10_000);
  assert.equal(retryDelay([10], 0, { retryAfter: 5, enforceRetryAfter: true }), 5000);
  assert.equal(retryDelay([10], 1, { retryAfter: 5, enforceRetryAfter: true }), undefined, 'the budget still ends');
});

test('Retry-After as seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('3'), 3);
  assert.equal(parseRetryAfter(['2', '9']), 2);
  assert.equal(parseRetryAfter(undefined), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now), 7);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0);
});

test('a repeating schedule: its delays in order, then the last for ever; none without a schedule', () => {
  assert.deepEqual([0, 1, 2, 3, 9].map((attempt) => repeatingDelay([1, 5, 10], attempt)), [1, 5, 10, 10, 10]);
  assert.equal(repeatingDelay([], 0), 0);
});

test('a sleep says whether it slept its time or was cut short by the signal', async () => {
  assert.equal(await sleep(1), true);
  const controller = new AbortController();
  const sleeping = sleep(60_000, controller.signal);
  controller.abort();
  assert.equal(await sleeping, false);
  assert.equal(await sleep(60_000, controller.signal), false, 'an aborted signal: no sleep at all');
});
