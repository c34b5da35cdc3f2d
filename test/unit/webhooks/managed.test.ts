/**
 * The managed webhook configurations' content, as Kopf builds it: names, rules, policies, object
 * selectors, client configs with the handler's id, and the persistent ones kept on exit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { ABSENT, PRESENT } from '../../../runtime/registry/markers.ts';
import { buildWebhooks, webhookName } from '../../../runtime/webhooks/managed.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

const RULE = { apiGroups: ['kopf.dev'], apiVersions: ['v1'], scope: '*' };

function resolved(registry: OperatorRegistry) {
  return registry.webhookHandlers.map((handler) => ({ handler, resource: KopfExample }));
}

test('one webhook per handler of the kind, with Kopf\'s fields', () => {
  const registry = new OperatorRegistry();
  registry.on.validate(KopfExample, function check_it() { /* nothing */ }, {
    operations: ['CREATE', 'UPDATE'], labels: { a: 'b', p: PRESENT, q: ABSENT, f: () => true }, timeout: 10,
  });
  const options = { subresource: 'status', sideEffects: true, ignoreFailures: true };
  registry.on.validate(KopfExample, function statuses() { /* nothing */ }, options);
  registry.on.mutate(KopfExample, function change() { /* nothing */ });
  const config = { url: 'https://localhost:1234/prefix/', caBundle: 'Q0E=' };
  const webhooks = buildWebhooks(resolved(registry), 'validating', 'auto.kopf.dev', config);
  assert.deepEqual(webhooks, [
    {
      name: 'check-it.auto.kopf.dev', sideEffects: 'None', failurePolicy: 'Fail', matchPolicy: 'Equivalent',
      rules: [{ ...RULE, resources: ['kopfexamples'], operations: ['CREATE', 'UPDATE'] }],
      objectSelector: { matchExpressions: [
        { key: 'a', operator: 'In', values: ['b'] }, { key: 'p', operator: 'Exists' },
        { key: 'q', operator: 'DoesNotExist' },
      ] },
      clientConfig: { url: 'https://localhost:1234/prefix/check_it', caBundle: 'Q0E=' },
      timeoutSeconds: 10, admissionReviewVersions: ['v1', 'v1beta1'],
    },
    {
      name: 'statuses.auto.kopf.dev', sideEffects: 'NoneOnDryRun', failurePolicy: 'Ignore', matchPolicy: 'Equivalent',
      rules: [{ ...RULE, resources: ['kopfexamples/status'], operations: ['*'] }],
      clientConfig: { url: 'https://localhost:1234/prefix/statuses', caBundle: 'Q0E=' },
      timeoutSeconds: 30, admissionReviewVersions: ['v1', 'v1beta1'],
    },
  ]);
});

test('a Service client config gets the handler id appended to its path; field ids keep their slash', () => {
  const registry = new OperatorRegistry();
  registry.on.mutate(KopfExample, function fix() { /* nothing */ }, { field: 'spec.field', persistent: true });
  registry.on.mutate(KopfExample, function gone() { /* nothing */ });
  const service = { service: { namespace: 'ops', name: 'operator', path: '/hooks', port: 443 } };
  const all = buildWebhooks(resolved(registry), 'mutating', 'x.dev', service);
  assert.deepEqual(all.map((w) => [w.name, w.clientConfig]), [
    ['fix.spec.field.x.dev', { service: { ...service.service, path: '/hooks/fix/spec.field' } }],
    ['gone.x.dev', { service: { ...service.service, path: '/hooks/gone' } }],
  ]);
  const persistent = buildWebhooks(resolved(registry), 'mutating', 'x.dev', service, true);
  assert.deepEqual(persistent.map((w) => w.name), ['fix.spec.field.x.dev']);
});

test('webhook names are DNS subdomains made from handler ids', () => {
  assert.equal(webhookName('create_fn', 'auto.kopf.dev'), 'create-fn.auto.kopf.dev');
  assert.equal(webhookName('Parent/child_fn', 'x'), 'parent.child-fn.x');
  assert.equal(webhookName('a b:c', ''), 'a20b3ac');
});
