/** Which requests a fault of the proxy applies to: matches, and the counting of skip/times/nth. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, matches, type Counting, type RequestInfo } from '../../e2e/faults/matching.ts';

function request(method: string, path: string, query = ''): RequestInfo {
  const params = new URLSearchParams(query);
  return { seq: 1, method, path, query: params, watch: params.get('watch') === 'true', headers: {} };
}

test('every condition of a match must hold', () => {
  const patch = request('PATCH', '/apis/kopf.dev/v1/namespaces/ns/kopfexamples/a/status');
  assert.ok(matches({}, patch));
  assert.ok(matches({ method: ['GET', 'PATCH'], path: /\/status$/ }, patch));
  assert.ok(!matches({ method: 'GET' }, patch));
  assert.ok(!matches({ path: '/apis/kopf.dev/v1/namespaces/ns/kopfexamples/a' }, patch), 'an exact path is exact');
  assert.ok(matches({ watch: true }, request('GET', '/x', 'watch=true')));
  assert.ok(!matches({ watch: false }, request('GET', '/x', 'watch=true')));
  assert.ok(!matches({ where: (r) => r.query.has('labelSelector') }, patch));
});

function applied(counting: Counting, requests: number): boolean[] {
  const counter = new Counter(counting);
  return Array.from({ length: requests }, () => counter.applies());
}

test('skip lets the first requests pass, times limits how many the fault applies to, nth picks one', () => {
  assert.deepEqual(applied({}, 3), [true, true, true]);
  assert.deepEqual(applied({ skip: 1, times: 2 }, 5), [false, true, true, false, false]);
  assert.deepEqual(applied({ nth: 3 }, 4), [false, false, true, false]);
  assert.deepEqual(applied({ times: 0 }, 2), [false, false]);
  assert.throws(() => new Counter({ nth: 2, times: 1 }), /nth excludes/);
});
