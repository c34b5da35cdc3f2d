/**
 * The API client's request policy against a fake API server: which failures are retried and how
 * (429, 5xx, dropped connections, timeouts, 401), what errors carry, tracing and retry notices, and
 * a closed client.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApiConnectionError,
  ApiError,
  CachedCredentials,
  KubeClient,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isRetryable,
  type RetryNotice,
} from '../../../runtime/kube/index.ts';
import { clientOf, deferred, sendJson, startServer, status } from './fake-server.ts';

test('429 with Retry-After: the retry comes no sooner than the server asked', async (t) => {
  const server = await startServer((req, res) => {
    if (server.received.length === 1)
      sendJson(res, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' });
    else sendJson(res, 200, { ok: true });
  });
  t.after(() => server.close());
  const client = clientOf(server);
  assert.deepEqual(await client.request('GET', '/api/v1/namespaces'), { ok: true });
  assert.equal(server.received.length, 2);
  const gap = server.received[1].at - server.received[0].at;
  assert.ok(gap >= 1000, `the retry came ${gap} ms after the 429`);
});

test('429 with details.retryAfterSeconds and no header is honoured too', async (t) => {
  const server = await startServer((req, res) => {
    if (server.received.length === 1)
      sendJson(res, 429, status(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }));
    else sendJson(res, 200, {});
  });
  t.after(() => server.close());
  await clientOf(server).request('GET', '/api');
  const gap = server.received[1].at - server.received[0].at;
  assert.ok(gap >= 1000, `the retry came ${gap} ms after the 429`);
});

test('5xx and dropped connections are retried until success; attempts are counted by verb', async (t) => {
  const server = await startServer((req, res, raw) => {
    const n = server.received.length;
    // The 503 closes its connection, so that the drop is on a new one: the server's failure, not a stale connection.
    if (n === 1) sendJson(res, 503, status(503, 'ServiceUnavailable', 'try later'), { Connection: 'close' });
    else if (n === 2) raw.socket.destroy();
    else if (n === 3) sendJson(res, 500, status(500, 'InternalError', 'oops'));
    else sendJson(res, 201, { metadata: { name: 'x' } });
  });
  t.after(() => server.close());
  const client = clientOf(server);
  const result = await client.request<{ metadata: { name: string } }>(
    'POST',
    '/api/v1/namespaces/default/configmaps',
    { body: { metadata: { name: 'x' } } },
  );
  assert.equal(result.metadata.name, 'x');
  assert.equal(server.received.length, 4);
  assert.deepEqual(server.received.map((r) => r.body), Array(4).fill('{"metadata":{"name":"x"}}'));
  assert.deepEqual(client.requestCounts(), { create: 4 });
});

test('4xx is not retried and carries the fields of v1.Status', async (t) => {
  const server = await startServer((req, res) => {
    sendJson(res, 404, status(404, 'NotFound', 'configmaps "x" not found', { name: 'x', kind: 'configmaps' }));
  });
  t.after(() => server.close());
  const error = await clientOf(server).request('GET', '/api/v1/namespaces/default/configmaps/x').then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 404);
  assert.equal(error.code, 404);
  assert.equal(error.reason, 'NotFound');
  assert.deepEqual(error.details, { name: 'x', kind: 'configmaps' });
  assert.match(error.message, /configmaps "x" not found/);
  assert.ok(isNotFound(error));
  assert.ok(!isRetryable(error));
  assert.equal(server.received.length, 1);
});

test('409 distinguishes a conflict from an existing object', async (t) => {
  const server = await startServer((req, res) => {
    if (req.method === 'POST') sendJson(res, 409, status(409, 'AlreadyExists', 'exists'));
    else sendJson(res, 409, status(409, 'Conflict', 'the object has been modified'));
  });
  t.after(() => server.close());
  const client = clientOf(server);
  const exists = await client.request('POST', '/x', { body: {} }).catch((e: unknown) => e);
  const conflict = await client.request('PUT', '/x', { body: {} }).catch((e: unknown) => e);
  assert.ok(isAlreadyExists(exists) && !isConflict(exists));
  assert.ok(isConflict(conflict) && !isAlreadyExists(conflict));
});

test('a non-JSON error body still gives a typed error with the text', async (t) => {
  const server = await startServer((req, res) => {
    res.writeHead(403, { 'Content-Type': 'text/plain' });
    res.end('forbidden by a proxy');
  });
  t.after(() => server.close());
  const error = await clientOf(server).request('GET', '/api').catch((e: unknown) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 403);
  assert.equal(error.reason, '');
  assert.match(error.message, /forbidden by a proxy/);
});

test('when retries run out, the last error is thrown: ApiError for HTTP, ApiConnectionError below it', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 502, status(502, '', 'bad gateway')));
  t.after(() => server.close());
  const error = await clientOf(server, { errorBackoffs: [0.01, 0.01] }).request('GET', '/api').catch((e: unknown) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 502);
  assert.equal(server.received.length, 3);

  await server.close();
  const refused = await clientOf(server, { errorBackoffs: [0.01] }).request('GET', '/api').catch((e: unknown) => e);
  assert.ok(refused instanceof ApiConnectionError, String(refused));
  assert.equal((refused.cause as { code?: string }).code, 'ECONNREFUSED');
});

test('retries: 0 in a request overrides the client policy', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 503, status(503, 'ServiceUnavailable', 'no')));
  t.after(() => server.close());
  await assert.rejects(clientOf(server).request('GET', '/api', { retries: 0 }), ApiError);
  assert.equal(server.received.length, 1);
});

test('a request that exceeds its timeout is abandoned and retried', async (t) => {
  const server = await startServer((req, res) => {
    if (server.received.length > 1) sendJson(res, 200, { second: true });
    // The first request is never answered.
  });
  t.after(() => server.close());
  const client = clientOf(server, { requestTimeout: 0.2 });
  assert.deepEqual(await client.request('GET', '/api'), { second: true });
  assert.equal(server.received.length, 2);
});

test('a timeout without retries surfaces as ApiConnectionError caused by a TimeoutError', async (t) => {
  const server = await startServer(() => { /* never answers */ });
  t.after(() => server.close());
  const error = await clientOf(server).request('GET', '/api', { retries: 0, timeout: 0.1 }).catch((e: unknown) => e);
  assert.ok(error instanceof ApiConnectionError);
  assert.equal((error.cause as Error).name, 'TimeoutError');
});

test('an aborted signal stops the request and its retries', async (t) => {
  const { promise: answered, resolve } = deferred();
  const server = await startServer((req, res) => {
    sendJson(res, 503, status(503, 'ServiceUnavailable', 'no'), { 'Retry-After': '30' });
    resolve();
  });
  t.after(() => server.close());
  const controller = new AbortController();
  const pending = clientOf(server).request('GET', '/api', { signal: controller.signal });
  await answered;
  controller.abort(new Error('stopped'));
  await assert.rejects(pending, /stopped/);
  assert.equal(server.received.length, 1);
});

test('a 401 refreshes the credentials and retries once', async (t) => {
  const server = await startServer((req, res) => {
    if (req.headers.authorization === 'Bearer fresh') sendJson(res, 200, { ok: true });
    else sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
  });
  t.after(() => server.close());
  const issued: string[] = [];
  const tokens = ['stale', 'fresh', 'later'];
  const source = new CachedCredentials(async () => {
    const token = tokens[issued.length];
    issued.push(token);
    return { server: server.url, headers: { Authorization: `Bearer ${token}` }, tls: {} };
  });
  const client = new KubeClient(source, { errorBackoffs: [0.01] });
  assert.deepEqual(await client.request('GET', '/api'), { ok: true });
  assert.deepEqual(issued, ['stale', 'fresh']);
  assert.deepEqual(server.received.map((r) => r.headers.authorization), ['Bearer stale', 'Bearer fresh']);

  // Still unauthorised after the refresh: the error is thrown, not retried forever.
  const denied = await startServer((req, res) => sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized')));
  t.after(() => denied.close());
  const other = new KubeClient(
    new CachedCredentials(async () => ({ server: denied.url, headers: {}, tls: {} })),
    { errorBackoffs: [0.01] },
  );
  const error = await other.request('GET', '/api').catch((e: unknown) => e);
  assert.ok(error instanceof ApiError && error.status === 401);
  assert.equal(denied.received.length, 2);
});

test('every attempt of a request is traced with its status (what --debug logs)', async () => {
  let calls = 0;
  const server = await startServer(
    (_req, res) => { calls++; if (calls === 1) sendJson(res, 503, {}); else sendJson(res, 200, { ok: true }); }
  );
  const traces: { method: string; path: string; status: number }[] = [];
  const client = clientOf(server, { trace: ({ method, path, status }) => traces.push({ method, path, status }) });
  try {
    await client.request('GET', '/api/v1/namespaces');
    assert.deepEqual(traces, [
      { method: 'GET', path: '/api/v1/namespaces', status: 503 },
      { method: 'GET', path: '/api/v1/namespaces', status: 200 },
    ]);
  } finally {
    client.close();
    await server.close();
  }
});

test('each retry is announced with the attempt, the attempts in all and the delay', async (t) => {
  let calls = 0;
  const server = await startServer(
    (req, res) => (++calls < 3 ? sendJson(res, 503, status(503, 'ServiceUnavailable', 'busy')) : sendJson(res, 200, {}))
  );
  t.after(() => server.close());
  const notices: RetryNotice[] = [];
  const client = clientOf(server, { errorBackoffs: [0.01, 0.02, 0.03], onRetry: (notice) => notices.push(notice) });
  await client.request('GET', '/api');
  client.close();
  assert.deepEqual(notices.map(({ method, path, attempt, attempts }) => ({ method, path, attempt, attempts })), [
    { method: 'GET', path: '/api', attempt: 1, attempts: 4 },
    { method: 'GET', path: '/api', attempt: 2, attempts: 4 },
  ]);
  assert.ok(
    notices.every((n) => n.delay > 0 && n.delay < 0.1 && n.error instanceof ApiError && n.error.status === 503)
  );
});

test('a closed client sends nothing more, not even the retry it was waiting for', async (t) => {
  let calls = 0;
  const answered = deferred();
  const server = await startServer(
    (req, res) => { calls++; sendJson(res, 503, status(503, 'ServiceUnavailable', 'busy')); answered.resolve(); }
  );
  t.after(() => server.close());
  const client = clientOf(server, { errorBackoffs: [0.2, 0.2] });
  const waiting = client.request('GET', '/api');
  await answered.promise;
  client.close();
  await assert.rejects(waiting, { name: 'ApiConnectionError', message: 'GET /api: the API client is closed' });
  await assert.rejects(client.request('GET', '/version'), { message: 'GET /version: the API client is closed' });
  assert.equal(calls, 1);
});
