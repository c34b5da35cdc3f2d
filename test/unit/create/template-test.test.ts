/**
 * The test a new project starts with: what it counts as the operator's problems in its log. A
 * refusal by the RBAC counts; an invalid object's message ("spec: Forbidden: …"), which the API
 * server also words with "Forbidden", does not. Its failures quote lines, not the whole log.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { apiErrorOf } from '../../../runtime/kube/index.ts';

const TEMPLATE = readFileSync(new URL('../../../templates/project/test/operator.test.ts.hbs', import.meta.url), 'utf8');

/** The template's PROBLEMS pattern, read from its source as a literal (nothing of it is run). */
function problems(): RegExp {
  const literal = /^const PROBLEMS = \/(.+)\/([a-z]*);$/m.exec(TEMPLATE);
  assert.ok(literal, 'the template defines PROBLEMS as a regular expression literal');
  return new RegExp(literal[1]!, literal[2]);
}

const denied = apiErrorOf({
  status: 403, method: 'PATCH', verb: 'patch', path: '/api/v1/namespaces/default/configmaps/test-greeting',
  body: { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message:
    'configmaps "test-greeting" is forbidden: User "system:serviceaccount:op:op" cannot patch resource "configmaps" ' +
      'in API group "" in the namespace "default"' },
});
const invalid = apiErrorOf({
  status: 422, method: 'PATCH', verb: 'patch', path: '/apis/example.com/v1/namespaces/default/widgets/test',
  body: { kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message:
    'Widget.example.com "test" is invalid: spec: Forbidden: updates to spec for fields other than \'greeting\' are ' +
      'forbidden' },
});

test('an RBAC refusal in the log is a problem; an invalid object\'s "Forbidden" is not', () => {
  const pattern = problems();
  assert.match(`[default/test] Handler 'createWidget' failed temporarily: ${denied.message}`, pattern);
  assert.match(`Watching widgets.v1.example.com failed: ${denied.message}`, pattern, 'a refusal outside a handler');
  assert.doesNotMatch(`[default/test] Merge-patching finished with inconsistencies: ${invalid.message}`, pattern);
});

test('the failures quote the last lines or the lines at fault, not the whole log', () => {
  assert.doesNotMatch(TEMPLATE, /, exit\.output\)/, 'no assertion takes the whole output as its message');
  assert.match(TEMPLATE, /lastLines\(exit\.output\)/);
});
