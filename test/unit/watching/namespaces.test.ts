import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isGlob, matchesNamespace } from '../../../runtime/watching/namespaces.ts';

test('plain names are not globs; globs, exclusions and lists are', () => {
  assert.equal(isGlob('default'), false);
  for (const p of ['ns-*', 'n?', '!kube-system', 'a,b']) assert.equal(isGlob(p), true, p);
});

test('the first glob decides; exclusions cut from it; later globs re-include only what it matched', () => {
  const p = ['app-*,!app-test*,app-test-keep'];
  assert.equal(matchesNamespace('app-prod', p), true);
  assert.equal(matchesNamespace('app-test-1', p), false);
  assert.equal(matchesNamespace('app-test-keep', p), true);
  assert.equal(
    matchesNamespace('other', ['app-*,other']),
    false,
    'a later glob cannot add what the first did not match',
  );
});

test('a leading exclusion means "everything but"; several patterns add up', () => {
  assert.equal(matchesNamespace('default', ['!kube-*']), true);
  assert.equal(matchesNamespace('kube-system', ['!kube-*']), false);
  assert.equal(matchesNamespace('b', ['a', 'b']), true);
  assert.equal(matchesNamespace('c', ['a', 'b']), false);
});
