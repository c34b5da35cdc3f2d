/**
 * The client's own HTTP transport against fake servers: keep-alive connections and their limit,
 * reuse and closing, the shared read buffer, what goes on the wire, proxies, and TLS.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import {
  ApiConnectionError, ApiError, KubeClient, staticCredentials, type RetryNotice, type TlsMaterial,
} from '../../../runtime/kube/index.ts';
import { createControlPlanePki } from '../../../runtime/testing/controlplane/certificates.ts';
import { clientOf, deferred, sendJson, startServer } from './fake-server.ts';

test('connections are kept alive between requests', async (t) => {
  const ports = new Set<number>();
  const server = await startServer((req, res, raw) => {
    ports.add(raw.socket.remotePort ?? 0);
    sendJson(res, 200, {});
  });
  t.after(() => server.close());
  const client = clientOf(server);
  for (let i = 0; i < 5; i++) await client.request('GET', '/api');
  assert.equal(ports.size, 1);
  client.close();
});

test('a server URL with a path prefix keeps it; queries skip undefined parameters', async (t) => {
  const server = await startServer(
    (req, res) => sendJson(res, 200, { path: req.path, query: Object.fromEntries(req.query) })
  );
  t.after(() => server.close());
  const client = clientOf({ url: `${server.url}/k8s/clusters/c-1/` });
  assert.deepEqual(
    await client.request(
      'GET',
      '/api/v1/pods',
      { query: { limit: 5, labelSelector: 'app in (a,b)', continue: undefined } },
    ),
    { path: '/k8s/clusters/c-1/api/v1/pods', query: { limit: '5', labelSelector: 'app in (a,b)' } },
  );
  assert.deepEqual(await client.request('GET', '/api'), { path: '/k8s/clusters/c-1/api', query: {} });
  client.close();
});

test('a response cut short mid-body is a connection error, retried like one', async (t) => {
  const server = await startServer((req, res, raw) => {
    if (server.received.length === 1) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"partial":');
      setImmediate(() => raw.socket.destroy());
    } else sendJson(res, 200, { whole: true });
  });
  t.after(() => server.close());
  const client = clientOf(server);
  assert.deepEqual(await client.request('GET', '/api'), { whole: true });
  assert.equal(server.received.length, 2);
  client.close();
});

test('regular requests share at most maxSockets connections; the others wait their turn', async (t) => {
  const ports = new Set<number>();
  const server = await startServer((req, res, raw) => {
    ports.add(raw.socket.remotePort ?? 0);
    setImmediate(() => sendJson(res, 200, { n: req.query.get('n') }));
  });
  t.after(() => server.close());
  const client = clientOf(server, { maxSockets: 3 });
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, n) => client.request('GET', '/api', { query: { n } }))
  );
  assert.deepEqual(answers, Array.from({ length: 20 }, (_, n) => ({ n: String(n) })));
  assert.equal(ports.size, 3);
  client.close();
});

test('connections taken again from the idle ones still count against maxSockets', async (t) => {
  const ports = new Set<number>();
  const server = await startServer((req, res, raw) => {
    ports.add(raw.socket.remotePort ?? 0);
    setImmediate(() => sendJson(res, 200, {}));
  });
  t.after(() => server.close());
  const client = clientOf(server, { maxSockets: 2 });
  await Promise.all([client.request('GET', '/api'), client.request('GET', '/api')]); // two idle connections now
  await Promise.all(Array.from({ length: 10 }, () => client.request('GET', '/api')));
  assert.equal(ports.size, 2);
  client.close();
});

test('closing the client ends a request in flight on a reused connection', { timeout: 10_000 }, async (t) => {
  let hold: (() => void) | undefined;
  const held = deferred();
  const server = await startServer((req, res) => {
    if (!req.query.get('hold')) return sendJson(res, 200, {});
    hold = () => sendJson(res, 200, {});
    held.resolve();
  });
  t.after(() => { hold?.(); return server.close(); });
  const client = clientOf(server, { maxSockets: 1 });
  await client.request('GET', '/api'); // the connection is idle now, and taken again below
  const request = client.request('GET', '/api', { query: { hold: 1 } });
  await held.promise; // the server has it, and holds the answer
  client.close();
  await assert.rejects(request);
});

test('bodies that arrive in many reads on several connections at once come out intact (sockets share one read ' +
  'buffer)', async (t) => {
  // Each response is written in pieces, so that reads of different connections interleave: a body
  // that kept a view of the shared read buffer instead of a copy would be overwritten by the next read.
  const server = await startServer(async (req, res) => {
    const n = Number(req.query.get('n'));
    const text = JSON.stringify({ n, fill: String.fromCharCode(97 + n).repeat(300_000) });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    for (let at = 0; at < text.length; at += 50_000) {
      res.write(text.slice(at, at + 50_000));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  t.after(() => server.close());
  const client = clientOf(server);
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, n) => client.request<{ n: number; fill: string }>('GET', '/api', { query: { n } }))
  );
  for (const [n, answer] of answers.entries()) {
    assert.equal(answer.n, n);
    assert.equal(answer.fill, String.fromCharCode(97 + n).repeat(300_000), `response ${n} is intact`);
  }
  client.close();
});

test('an idle connection that the server closed is not used again: the next request needs no retry', async (t) => {
  const closed = deferred();
  const server = await startServer((req, res, raw) => {
    if (server.received.length === 1) {
      raw.socket.once('close', () => closed.resolve());
      res.setHeader('Connection', 'keep-alive');
      sendJson(res, 200, {});
      res.once('finish', () => raw.socket.end());
    } else sendJson(res, 200, { second: true });
  });
  t.after(() => server.close());
  const client = clientOf(server, { errorBackoffs: [] });
  await client.request('GET', '/api');
  await closed.promise;
  assert.deepEqual(await client.request('GET', '/api'), { second: true });
  assert.equal(client.requestCounts().get, 2);
  client.close();
});

test('a header or path that would break out of its line is refused before anything is sent', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 200, {}));
  t.after(() => server.close());
  const client = clientOf(server);
  await assert.rejects(
    client.request('PATCH', '/api', { body: {}, contentType: 'application/json\r\nX-Evil: 1' }),
    TypeError,
  );
  await assert.rejects(client.request('GET', '/api/v1/namespaces/a b/pods'), TypeError);
  await assert.rejects(
    new KubeClient(
      staticCredentials({ server: server.url, headers: { 'Impersonate-User': 'jan\u0001' }, tls: {} })
    ).request('GET', '/api'),
    TypeError,
  );
  await assert.rejects(
    new KubeClient(
      staticCredentials({ server: server.url, headers: { 'Impersonate-User': 'jan\u0142' }, tls: {} })
    ).request('GET', '/api'),
    TypeError,
  );
  assert.equal(server.received.length, 0);
  client.close();
});

test('headers found safe before are not taken as safe in another role, nor forgotten ones as unsafe', async (t) => {
  const server = await startServer((req, res) => sendJson(res, 200, {}));
  t.after(() => server.close());
  const send = async (headers: Record<string, string>) => {
    const client = new KubeClient(staticCredentials({ server: server.url, headers, tls: {} }), { errorBackoffs: [] });
    try {
      return await client.request('GET', '/api');
    } finally {
      client.close();
    }
  };
  await send({ 'X-Note': 'two words' });
  await assert.rejects(send({ 'two words': 'X-Note' }), TypeError, 'a safe value is not a safe name');
  for (let i = 0; i < 300; i++) await send({ [`X-Note-${i}`]: `value ${i}` });
  await send({ 'X-Note': 'two words' });
  await assert.rejects(send({ 'X-Note': 'two\r\nwords' }), TypeError);
  assert.equal(server.received.length, 302);
});

test('headers go out as Latin-1, as Node sends them, and a body beside them as UTF-8', async (t) => {
  const server = await startServer(
    (req, res) => sendJson(res, 200, { user: req.headers['impersonate-user'], body: req.body })
  );
  t.after(() => server.close());
  const client = new KubeClient(
    staticCredentials({ server: server.url, headers: { 'Impersonate-User': 'José' }, tls: {} }),
    { errorBackoffs: [] },
  );
  assert.deepEqual(
    await client.request('POST', '/api', { body: { name: 'żółw' } }),
    { user: 'José', body: '{"name":"żółw"}' },
  );
  client.close();
});

test('an agent that the kubeconfig insists on (a proxy) carries the requests, bodies and streams', async (t) => {
  const server = await startServer((req, res) => {
    if (req.query.get('watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"type":"ADDED","object":{}}\n');
    } else sendJson(res, 200, { echoed: req.body });
  });
  t.after(() => server.close());
  let connections = 0;
  const agent = new (class extends http.Agent {
    override createConnection(...args: Parameters<http.Agent['createConnection']>) {
      connections++;
      return super.createConnection(...args);
    }
  })({ keepAlive: true });
  t.after(() => agent.destroy());
  const client = new KubeClient(
    staticCredentials({ server: server.url, headers: {}, tls: {}, agent }),
    { errorBackoffs: [] },
  );
  assert.deepEqual(await client.request('POST', '/api', { body: { a: 1 } }), { echoed: '{"a":1}' });
  const stream = await client.openStream('/api', { query: { watch: 'true' } });
  assert.equal(Buffer.concat(await stream.body.toArray() as Buffer[]).toString(), '{"type":"ADDED","object":{}}\n');
  assert.ok(connections >= 1);
  client.close();
});

test('a request on a kept-alive connection that the server drops unanswered goes again at once on a new one', async (
  t
) => {
  const ports: number[] = [];
  const server = await startServer((req, res, raw) => {
    ports.push(raw.socket.remotePort ?? 0);
    if (server.received.length === 2) raw.socket.destroy(); // as a server closing an idle connection would
    else sendJson(res, 200, { n: server.received.length });
  });
  t.after(() => server.close());
  const client = clientOf(server, { errorBackoffs: [] });
  assert.deepEqual(await client.request('GET', '/api'), { n: 1 });
  assert.deepEqual(await client.request('GET', '/api'), { n: 3 });
  assert.equal(ports[0], ports[1], 'the second request reused the first connection');
  assert.notEqual(ports[2], ports[1], 'the retry had a connection of its own');
  // A fresh connection that drops is the server's failure: it goes to the client's retry schedule.
  const fresh = await startServer((req, res, raw) => { raw.socket.destroy(); });
  t.after(() => fresh.close());
  await assert.rejects(clientOf(fresh, { errorBackoffs: [] }).request('GET', '/api'), ApiConnectionError);
  assert.equal(fresh.received.length, 1);
  client.close();
});

test('TLS material that Node refuses fails each request with its reason, and nothing else', async () => {
  const client = new KubeClient(
    staticCredentials(
      { server: 'https://127.0.0.1:1', headers: {}, tls: { cert: 'not a certificate', key: 'not a key' } }
    ),
    { errorBackoffs: [], maxSockets: 1 },
  );
  // With one connection allowed, a failed opening that still counted as open would leave the second request waiting.
  for (let i = 0; i < 2; i++) {
    const error = await client.request('GET', '/api', { timeout: 5 }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Error && !(error instanceof ApiError), String(error));
    assert.match(String((error as Error).message), /key|certificate|PEM|DECODER|unsupported/i);
  }
  client.close();
});

test('a server certificate the client cannot trust fails at once, saying where to look', async (t) => {
  const pki = createControlPlanePki();
  const server = https.createServer(
    { cert: pki.serving.cert, key: pki.serving.key },
    (req, res) => sendJson(res, 200, {}),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cases: [TlsMaterial, RegExp][] = [
    [
      {},
      /^GET \/api: .+ \(the server's certificate is not signed by a trusted authority: does the kubeconfig give the cluster's certificate-authority\(-data\)\?\)$/, // lint-ignore: a regular expression cannot wrap
    ],
    [
      { ca: pki.servingCa.cert, servername: 'elsewhere.example.com' },
      /\(the server's certificate is not for this address: check the cluster's server URL, or its tls-server-name\)$/,
    ],
  ];
  for (const [tls, expected] of cases) {
    const notices: RetryNotice[] = [];
    const client = new KubeClient(
      staticCredentials({ server: url, headers: {}, tls }),
      { errorBackoffs: [0.01], onRetry: (n) => notices.push(n) },
    );
    await assert.rejects(
      client.request('GET', '/api'),
      (error: Error) => error instanceof ApiConnectionError && expected.test(error.message),
    );
    assert.deepEqual(notices, [], 'a configuration mistake is not retried');
    client.close();
  }
  // The same server, trusted: the certificate was the only problem.
  const trusted = new KubeClient(staticCredentials({ server: url, headers: {}, tls: { ca: pki.servingCa.cert } }));
  assert.deepEqual(await trusted.request('GET', '/api'), {});
  trusted.close();
});
