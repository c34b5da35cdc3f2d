/**
 * Discovery gaps: for a moment after kube-apiserver restarts (and after a CRD is created),
 * discovery does not list a resource whose CRD is there. An operator that starts in such a gap
 * resolves the name again, with backoff, until discovery lists it, and says it is waiting; one
 * whose resource disappears for a moment while it runs comes back to it, even when discovery
 * fails meanwhile. No CRD changes in either case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { deferred, kubeconfigOf, sendJson, startServer, status, type Received } from '../kube/fake-server.ts';

const GROUP = {
  name: 'kopf.dev',
  versions: [{ groupVersion: 'kopf.dev/v1', version: 'v1' }],
  preferredVersion: { groupVersion: 'kopf.dev/v1', version: 'v1' },
};
const RESOURCES = [
  {
    name: 'kopfexamples',
    singularName: 'kopfexample',
    namespaced: true,
    kind: 'KopfExample',
    verbs: ['get', 'list', 'watch', 'patch'],
    shortNames: ['kex'],
  },
];
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'kopfexamples.kopf.dev', resourceVersion: '1' },
  spec: {
    group: 'kopf.dev',
    scope: 'Namespaced',
    names: { plural: 'kopfexamples', singular: 'kopfexample', kind: 'KopfExample', shortNames: ['kex'] },
  },
};
const OBJECTS = '/apis/kopf.dev/v1/namespaces/default/kopfexamples';

function example(name: string) {
  return {
    apiVersion: 'kopf.dev/v1',
    kind: 'KopfExample',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5' },
  };
}

/**
 * A fake API server with the KopfExample CRD installed; `hidden(req)` says whether discovery
 * leaves the group out of this request's answer (then `/apis/kopf.dev/v1` is a 404, as in the gap),
 * `objects(req)` answers the resource's requests (the CRD list and the other watches are held open).
 */
async function apiServer(
  discovery: (req: Received, res: ServerResponse) => boolean,
  objects: (req: Received, res: ServerResponse) => void,
) {
  const server = await startServer((req, res) => {
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/api/v1') return sendJson(res, 200, { kind: 'APIResourceList', resources: [] });
    if (req.path === '/apis' || req.path === '/apis/kopf.dev/v1') {
      if (discovery(req, res)) return; // answered already
      if (req.path === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', groups: [GROUP] });
      return sendJson(res, 200, { kind: 'APIResourceList', groupVersion: 'kopf.dev/v1', resources: RESOURCES });
    }
    if (req.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
      if (req.query.has('watch')) return; // held open
      return sendJson(
        res,
        200,
        { kind: 'CustomResourceDefinitionList', metadata: { resourceVersion: '1' }, items: [CRD] },
      );
    }
    if (req.path === OBJECTS) return objects(req, res);
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  });
  return server;
}

/** Hides the group from discovery: an empty group list, and a 404 for the group-version. */
function hide(req: Received, res: ServerResponse): true {
  if (req.path === '/apis') sendJson(res, 200, { kind: 'APIGroupList', groups: [] });
  else sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  return true;
}

function operatorOn(server: { url: string }, registry: OperatorRegistry) {
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: kubeconfigOf(server), namespaces: ['default'],
    settings: defaultSettings({ posting: { enabled: false }, networking: { errorBackoffs: [0.01, 0.02, 0.05] } }),
    logs: new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }),
  });
  return { op, capture };
}

test('an operator started while discovery does not list a resource whose CRD exists resolves it again until it ' +
  'does, and serves it', async (t) => {
  // The first four looks at the group list leave the group out (and its resource list is a 404).
  let looks = 0;
  const server = await apiServer((req, res) => {
    if (req.path === '/apis') looks++;
    return looks <= 4 && hide(req, res);
  }, (req, res) => {
    if (req.query.has('watch')) return; // held open
    sendJson(
      res,
      200,
      { kind: 'KopfExampleList', metadata: { resourceVersion: '5' }, items: [example('early'), example('late')] },
    );
  });
  t.after(() => server.close());
  const seen = new Set<string>();
  const both = deferred();
  const registry = new OperatorRegistry();
  registry.on.event(
    'kopfexamples',
    function seen_fn({ name }) { seen.add(name ?? ''); if (seen.size === 2) both.resolve(); },
  );
  const { op, capture } = operatorOn(server, registry);
  try {
    await op.ready;
    await both.promise;
  } finally {
    await op.stop();
  }
  const messages = capture.messages();
  assert.ok(
    messages.some(
      (m) => m.startsWith("Unresolved resources cannot be served (try creating their CRDs): 'kopfexamples'")
    ),
    messages.join('\n'),
  );
  const waiting = messages.filter(
    (m) => m.startsWith("The resource 'kopfexamples' has a CRD, but discovery does not list it yet")
  );
  assert.ok(waiting.length >= 1 && waiting.length <= 4, messages.join('\n'));
  assert.match(waiting[0]!, /still waiting; the next try in 0\.01 s\.$/);
  assert.ok(messages.includes("The resource 'kopfexamples' is served now: discovery lists it."), messages.join('\n'));
  assert.deepEqual([...seen].sort(), ['early', 'late']);
});

test('a name with no CRD waits for one, and is resolved again until discovery lists it after the CRD appears', async (
  t
) => {
  const crdWatch = deferred<ServerResponse>();
  let created = false;
  let listedAfter = 0;
  const server = await startServer((req, res) => {
    if (req.path === '/api') return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.path === '/api/v1') return sendJson(res, 200, { kind: 'APIResourceList', resources: [] });
    // Discovery lists the group only from the third look after the CRD's creation.
    const listed = created && ++listedAfter > 2;
    if (req.path === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', groups: listed ? [GROUP] : [] });
    if (req.path === '/apis/kopf.dev/v1')
      return listed ? sendJson(res, 200, { kind: 'APIResourceList', resources: RESOURCES }) : sendJson(
        res,
        404,
        status(404, 'NotFound', 'no'),
      );
    if (req.path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
      if (!req.query.has('watch'))
        return sendJson(
          res,
          200,
          { kind: 'CustomResourceDefinitionList', metadata: { resourceVersion: '1' }, items: [] },
        );
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return crdWatch.resolve(res);
    }
    if (req.path === OBJECTS) {
      if (req.query.has('watch')) return;
      return sendJson(
        res,
        200,
        { kind: 'KopfExampleList', metadata: { resourceVersion: '5' }, items: [example('one')] },
      );
    }
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  });
  t.after(() => server.close());
  const handled = deferred();
  const registry = new OperatorRegistry();
  registry.on.event('kopfexamples', function seen_fn() { handled.resolve(); });
  const { op, capture } = operatorOn(server, registry);
  try {
    await op.ready;
    const watch = await crdWatch.promise;
    assert.ok(!capture.messages().some((m) => m.includes('has a CRD')), 'no CRD, no retries: it waits for one');
    created = true;
    watch.write(`${JSON.stringify({ type: 'ADDED', object: CRD })}\n`);
    await handled.promise;
  } finally {
    await op.stop();
  }
  const messages = capture.messages();
  assert.ok(
    messages.some((m) => m.startsWith("The resource 'kopfexamples' has a CRD, but discovery does not list it yet")),
    messages.join('\n'),
  );
  assert.ok(messages.includes("The resource 'kopfexamples' is served now: its CRD was created."), messages.join('\n'));
});

test('a resource that disappears for a moment while the operator runs, discovery failing meanwhile, is served ' +
  'again', async (t) => {
  let gap = false;
  let failures = 0;
  let watches = 0;
  const server = await apiServer((req, res) => {
    if (!gap) return false;
    // kube-apiserver restarting: discovery fails more times than the client retries, then leaves the group out.
    if (req.path === '/apis' && ++failures <= 5) {
      sendJson(res, 503, status(503, 'ServiceUnavailable', 'restarting'));
      return true;
    }
    return hide(req, res);
  }, (req, res) => {
    if (req.query.has('watch')) {
      if (++watches === 1) {
        gap = true;
        return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
      }
      if (gap && failures >= 8) gap = false; // the gap ends after a few rounds
      if (gap) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
      return; // held open
    }
    sendJson(
      res,
      200,
      {
        kind: 'KopfExampleList',
        metadata: { resourceVersion: '5' },
        items: watches ? [example('before'), example('after')] : [example('before')],
      },
    );
  });
  t.after(() => server.close());
  const seen = new Set<string>();
  const after = deferred();
  const registry = new OperatorRegistry();
  registry.on.event(
    'kopfexamples',
    function seen_fn({ name }) { seen.add(name ?? ''); if (name === 'after') after.resolve(); },
  );
  const { op, capture } = operatorOn(server, registry);
  try {
    await op.ready;
    await Promise.race([after.promise, op.done.then(() => { throw new Error('the operator stopped'); })]);
  } finally {
    await op.stop();
  }
  const messages = capture.messages();
  assert.ok(
    messages.some((m) => /^The resource kopfexamples\.v1\.kopf\.dev in 'default' is not served \(404\)/.test(m)),
    messages.join('\n'),
  );
  assert.ok(messages.some((m) => m.startsWith("Resolving 'kopfexamples' again failed")), 'discovery failed meanwhile');
  assert.ok(
    messages.some((m) => /^The resource kopfexamples\.v1\.kopf\.dev in 'default' is served again\./.test(m)),
    messages.join('\n'),
  );
  assert.deepEqual([...seen].sort(), ['after', 'before']);
});
