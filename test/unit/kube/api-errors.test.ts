/**
 * A 403 is told apart by who refused: the authorizer (an `AuthorizationError`, whose message sends
 * to the RBAC) or an admission check (a plain `ForbiddenError`, whose message says the RBAC is not
 * the cause). The messages are the API server's, as it words them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthorizationError, ForbiddenError, apiErrorOf, isForbidden } from '../../../runtime/kube/index.ts';

const CONFIGMAP = '/api/v1/namespaces/ns/configmaps/cm';
const refusal = (message: string | undefined, path = CONFIGMAP, verb = 'patch') => apiErrorOf({
  status: 403, method: 'PATCH', path, verb,
  body: message === undefined ? undefined : {
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message,
  },
});

test('the authorizer\'s refusals are AuthorizationErrors that name the verb, the resource and the RBAC', () => {
  const denials = [
    'configmaps "cm" is forbidden: User "system:serviceaccount:ns:op" cannot patch resource "configmaps" in API ' +
      'group "" in the namespace "ns"',
    'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope',
    'widgets.example.com "w" is forbidden: User "bob" cannot patch resource "widgets" in API group "example.com": ' +
      'RBAC: clusterrole "x" not found',
    'forbidden: User "system:anonymous" cannot get path "/version"',
  ];
  for (const message of denials) {
    const error = refusal(message);
    assert.ok(error instanceof AuthorizationError, message);
    assert.ok(error instanceof ForbiddenError && isForbidden(error), 'still a ForbiddenError');
    assert.match(error.message, /grant it in the RBAC of its service account/);
  }
  assert.match(refusal(denials[0]).message, /not allowed to 'patch' configmaps in the core API group/);
  assert.match(refusal(denials[3], '/version', 'get').message, /not allowed to 'get' the path \/version:/);
});

test('an admission check\'s refusal is a ForbiddenError that does not send to the RBAC', () => {
  const admissions = [
    'configmaps "cm" is forbidden: unable to create new content in namespace ns because it is being terminated',
    'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the ' +
      'storageclass that provisions the pvc must support resize',
    'pods "p" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=1, limited: pods=1',
    'admission webhook "deny.example.com" denied the request: User "x" cannot do this here',
    'namespaces "default" is forbidden: this namespace may not be deleted',
  ];
  for (const message of admissions) {
    const error = refusal(message);
    assert.ok(error instanceof ForbiddenError && !(error instanceof AuthorizationError), message);
    assert.equal(error.name, 'ForbiddenError');
    assert.doesNotMatch(error.message, /grant it in the RBAC/);
    assert.match(error.message, /refused by the API server's admission checks, not by the RBAC/);
    assert.equal(error.verb, 'patch');
    assert.equal(error.resource, 'configmaps');
  }
});

test('a 403 without the server\'s status (a proxy\'s page) is a ForbiddenError that claims no cause', () => {
  const error = refusal(undefined);
  assert.ok(error instanceof ForbiddenError && !(error instanceof AuthorizationError));
  assert.doesNotMatch(error.message, /RBAC|admission/);
});
