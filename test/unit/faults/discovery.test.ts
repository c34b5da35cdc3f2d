/**
 * The fault proxy's discovery hiding: which discovery requests it answers with 404, which it
 * rewrites, and what the rewritten documents lack.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoveryAction, rewriteDiscovery, type Hidden } from '../../e2e/faults/discovery.ts';
import type { RequestInfo } from '../../e2e/faults/matching.ts';

function get(path: string, method = 'GET'): RequestInfo {
  return { seq: 1, method, path, query: new URLSearchParams(), watch: false, headers: {} };
}

const GROUPS = {
  kind: 'APIGroupList',
  groups: [
    { name: 'kopf.dev', versions: [{ version: 'v1' }, { version: 'v2' }], preferredVersion: { version: 'v2' } },
    { name: 'apps', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } },
  ],
};
const RESOURCES = {
  kind: 'APIResourceList', resources: [{ name: 'kopfexamples' }, { name: 'kopfexamples/status' }, { name: 'others' }],
};

test('a hidden group: absent from /apis, its paths 404, other requests pass', () => {
  const hidden: Hidden[] = [{ group: 'kopf.dev' }];
  assert.equal(discoveryAction(hidden, get('/apis')), 'rewrite');
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev')), 'not-found');
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v1')), 'not-found');
  assert.equal(discoveryAction(hidden, get('/apis/apps/v1')), 'pass');
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v1/namespaces/default/kopfexamples')), 'pass');
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v1', 'POST')), 'pass');
  assert.equal(discoveryAction([], get('/apis')), 'pass');
  assert.deepEqual((rewriteDiscovery(hidden, '/apis', GROUPS) as typeof GROUPS).groups.map((g) => g.name), ['apps']);
});

test('a hidden version: the group keeps its other versions, and prefers one of them', () => {
  const hidden: Hidden[] = [{ group: 'kopf.dev', version: 'v2' }];
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v2')), 'not-found');
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v1')), 'pass');
  const [group] = (rewriteDiscovery(hidden, '/apis', GROUPS) as typeof GROUPS).groups;
  assert.deepEqual(group, { name: 'kopf.dev', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } });
});

test('a hidden resource: its group version lists the others, its subresources gone too', () => {
  const hidden: Hidden[] = [{ group: 'kopf.dev', resource: 'kopfexamples' }];
  assert.equal(discoveryAction(hidden, get('/apis/kopf.dev/v1')), 'rewrite');
  const list = rewriteDiscovery(hidden, '/apis/kopf.dev/v1', RESOURCES) as typeof RESOURCES;
  assert.deepEqual(list.resources, [{ name: 'others' }]);
  assert.equal((rewriteDiscovery(hidden, '/apis', GROUPS) as typeof GROUPS).groups.length, 2);
});

test('the core group is /api/<version>', () => {
  const hidden: Hidden[] = [{ group: '', resource: 'configmaps' }];
  assert.equal(discoveryAction(hidden, get('/api/v1')), 'rewrite');
  assert.equal(discoveryAction(hidden, get('/api/v1/namespaces/default/configmaps')), 'pass');
});
