/**
 * Malformed HTTP against every server of the runtime — the liveness endpoint and the metrics (one
 * server), the webhook server
 * over HTTPS and over plain HTTP — run in a process of their own (serving.ts), as an operator runs
 * them: bad request lines, bad and oversized headers, bad chunked encoding, slow clients, many
 * connections at once. Each is answered with a 4xx (or the connection closed where HTTP allows
 * no answer); afterwards the servers still answer good requests, and the process is still there.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MAX_REVIEW_DEPTH } from '../../../runtime/admission/reviews.ts';
import { closed, exchange, open, targetOf, type Target } from './http.ts';

const SERVING = fileURLToPath(new URL('./serving.ts', import.meta.url));

interface Served {
  child: ChildProcess;
  liveness: Target;
  metrics: Target;
  webhook: Target;
  plain: Target;
}

/** The servers' process; `limits`: headers and request timeouts in seconds, else the servers' defaults. */
async function start(...limits: number[]): Promise<Served> {
  const child = spawn(process.execPath, [SERVING, ...limits.map(String)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const [line] = await once(createInterface({ input: child.stdout! }), 'line') as [string];
  const urls = JSON.parse(line) as { liveness: string; metrics: string; webhook: string; ca: string; plain: string };
  return {
    child, liveness: targetOf(urls.liveness), metrics: targetOf(urls.metrics), webhook: targetOf(urls.webhook, urls.ca),
    plain: targetOf(urls.plain),
  };
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served || served.child.exitCode !== null || served.child.signalCode !== null) return;
  const exited = once(served.child, 'exit');
  served.child.kill('SIGTERM');
  await exited;
}

let patient: Served | undefined;
let impatient: Served | undefined;
before(async () => {
  [patient, impatient] = await Promise.all([start(), start(1, 2)]);
});
after(async () => {
  await Promise.all([stop(patient), stop(impatient)]);
});

/** Every server of a process, with the path it serves and a good request for it. */
function serversOf(served: Served): { name: string; target: Target; path: string; good: string }[] {
  return [
    { name: 'liveness', target: served.liveness, path: '/healthz', good: request('GET', '/healthz') },
    { name: 'metrics', target: served.metrics, path: '/metrics', good: request('GET', '/metrics') },
    { name: 'webhook (HTTPS)', target: served.webhook, path: '/hooks/label', good: reviewRequest(review()) },
    { name: 'webhook (HTTP)', target: served.plain, path: '/hooks/label', good: reviewRequest(review()) },
  ];
}

function request(method: string, path: string, body = '', headers = ''): string {
  const length = body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
  return `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}${length}Connection: close\r\n\r\n${body}`;
}

function reviewRequest(text: string): string {
  return request('POST', '/hooks/label', text, 'Content-Type: application/json\r\n');
}

/** A review's JSON, with the spec's JSON as given (JSON.stringify cannot write what these tests nest). */
function review(spec = '{"field":"value"}', operation = 'CREATE'): string {
  const object =
    `{"apiVersion":"kopf.dev/v1","kind":"KopfExample","metadata":{"name":"kex1","namespace":"ns1"},"spec":${spec}}`;
  const request = {
    uid: 'uid-1', resource: { group: 'kopf.dev', version: 'v1', resource: 'kopfexamples' }, operation,
    userInfo: { username: 'admin' }, object: '<object>', oldObject: operation === 'UPDATE' ? '<object>' : null,
  };
  const text = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  return text.replaceAll('"<object>"', object);
}

/** JSON nested `depth` levels deep. */
function nested(depth: number): string {
  return `${'{"nested":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}

/** The servers answer good requests, and their process has not exited. */
async function assertServing(served: Served): Promise<void> {
  assert.equal(served.child.exitCode, null, 'the process has not exited');
  assert.equal(served.child.signalCode, null, 'the process has not been killed');
  for (const { name, target, good } of serversOf(served)) {
    const outcome = await exchange(target, good);
    assert.equal(outcome.status, 200, `${name} answers a good request: ${outcome.text}`);
  }
}

const chunked = (
  path: string,
  body: string,
) => `POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`;
const LARGE = 'a'.repeat(70_000);

/** A request to the path the server serves, and the status it must get: exact, or any 4xx. */
const MALFORMED: [title: string, request: (path: string) => string, status: number | '4xx'][] = [
  ['a request target that is not a URL', () => 'GET http://[/ HTTP/1.1\r\nHost: x\r\n\r\n', '4xx'],
  ['a request line that is not one', () => 'GARBAGE\r\n\r\n', 400],
  ['an unknown HTTP version', (path) => `GET ${path} HTTP/9.9\r\nHost: x\r\n\r\n`, 400],
  ['a NUL in the request target', (path) => `GET ${path}\0 HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
  ['a request target past the header size limit', (path) => `GET ${path}?${LARGE} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
  ['a header without a colon', (path) => `GET ${path} HTTP/1.1\r\nHost x\r\n\r\n`, 400],
  ['a space before the colon', (path) => `GET ${path} HTTP/1.1\r\nHost : x\r\n\r\n`, 400],
  ['a control character in a header', (path) => `GET ${path} HTTP/1.1\r\nHost: x\u0001y\r\n\r\n`, 400],
  ['a header past the size limit', (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${LARGE}\r\n\r\n`, 431],
  [
    'two different lengths',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    400,
  ],
  [
    'a length and chunks',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    400,
  ],
  ['a length that is not a number', (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`, 400],
  ['a negative length', (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`, 400],
  [
    'a transfer coding other than chunked last',
    (path) => `POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n`,
    '4xx',
  ],
  ['a chunk size that is not hexadecimal', (path) => chunked(path, 'zz\r\nab\r\n0\r\n\r\n'), '4xx'],
  ['a chunk size past 64 bits', (path) => chunked(path, 'fffffffffffffffffffff\r\nab\r\n0\r\n\r\n'), '4xx'],
  ['a chunk longer than its size', (path) => chunked(path, '2\r\nabcdef\r\n0\r\n\r\n'), '4xx'],
  ['a chunk extension past its size limit', (path) => chunked(path, `2;${LARGE}\r\nab\r\n0\r\n\r\n`), '4xx'],
];

test('malformed requests are answered with a 4xx by every server, which goes on serving', {
  timeout: 120_000
}, async () => {
  for (const { name, target, path } of serversOf(patient!)) {
    for (const [title, malformed, status] of MALFORMED) {
      const outcome = await exchange(target, malformed(path));
      const what = `${name}, ${title}: ${JSON.stringify(outcome.text.slice(0, 80))}`;
      if (status === '4xx') assert.match(String(outcome.status), /^4\d\d$/, what);
      else assert.equal(outcome.status, status, what);
    }
  }
  await assertServing(patient!);
});

test('the liveness endpoint and the metrics answer a target that is not a URL with 400', async () => {
  for (const target of [patient!.liveness, patient!.metrics]) {
    const outcome = await exchange(target, 'GET http://[/ HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(outcome.status, 400);
  }
  await assertServing(patient!);
});

test('the metrics answer other methods with 405 and other paths with 404, and go on serving', async () => {
  const metrics = patient!.metrics;
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'BREW']) {
    const outcome = await exchange(metrics, request(method, '/metrics', method === 'POST' ? '{}' : ''));
    assert.match(String(outcome.status), method === 'BREW' ? /^4\d\d$/ : /^405$/, `${method}: ${outcome.text}`);
  }
  for (const path of ['/metrics/', '/metrics/../metrics2', '/Metrics', '/' + 'm'.repeat(5000)]) {
    const outcome = await exchange(metrics, request('GET', path));
    assert.match(String(outcome.status), /^4\d\d$/, `${path.slice(0, 40)}: ${outcome.text}`);
  }
  const good = await exchange(metrics, request('GET', '/metrics?x=%ff&y'));
  assert.equal(good.status, 200);
  assert.match(good.text, /^# HELP /m);
  await assertServing(patient!);
});

test('a review nested deeper than the bound is a 400 that says so, over HTTP; one within it is reviewed', async () => {
  for (const target of [patient!.webhook, patient!.plain]) {
    const outcome = await exchange(target, reviewRequest(review(nested(10_000), 'UPDATE')));
    assert.equal(outcome.status, 400, outcome.text);
  }
  // The spec sits four levels down in its review (review, request, object, spec); the handler's
  // patch is made against the object as well.
  const within = await exchange(patient!.webhook, reviewRequest(review(nested(MAX_REVIEW_DEPTH - 3), 'UPDATE')));
  assert.equal(within.status, 200, within.text.slice(0, 300));
  const past = await exchange(patient!.webhook, reviewRequest(review(nested(MAX_REVIEW_DEPTH - 2), 'UPDATE')));
  assert.equal(past.status, 400, past.text.slice(0, 300));
  await assertServing(patient!);
});

/**
 * Slow clients, each disconnected by the server's timeouts. `tcp`: a bare TCP connection even to
 * HTTPS, whose TLS handshake then never begins.
 */
const SLOW: [title: string, attack: (socket: ReturnType<typeof open>, path: string) => void, tcp?: 'tcp'][] = [
  ['a connection that sends nothing', () => undefined, 'tcp'],
  ['a connection that sends nothing after its handshake', () => undefined],
  ['headers never finished', (socket, path) => { socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n`); }],
  ['headers trickled a byte at a time', (socket, path) => {
    const bytes = [...`GET ${path} HTTP/1.1\r\nHost: x\r\n${'X-Slow: x\r\n'.repeat(1000)}`];
    const timer = setInterval(() => { if (!socket.destroyed) socket.write(bytes.shift() ?? 'x'); }, 50);
    socket.once('close', () => clearInterval(timer));
  }],
  ['a body never finished', (socket, path) => {
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"partial":`);
  }],
];

test('slow clients are disconnected by the servers\' timeouts, which go on serving', { timeout: 120_000 }, async () => {
  const attacks = serversOf(impatient!).flatMap(({ name, target, path }) => SLOW.map(async ([title, attack, tcp]) => {
    const socket = open(tcp ? { host: target.host, port: target.port } : target);
    const outcome = closed(socket);
    attack(socket, path);
    // Awaited: the server closes the connection. What it said first, if anything, is a 4xx
    // (408 where the request was late; 405 from the liveness endpoint for a POST).
    const { status, text } = await outcome;
    if (status !== null) assert.match(String(status), /^4\d\d$/, `${name}, ${title}: ${JSON.stringify(text)}`);
  }));
  await Promise.all(attacks);
  await assertServing(impatient!);
});

test('many connections at once: good and malformed requests are all answered; idle ones do not block others', {
  timeout: 120_000
}, async () => {
  for (const { name, target, path, good } of serversOf(patient!)) {
    const idle = Array.from({ length: 200 }, () => open(target));
    const bad = `GET ${path} HTTP/1.1\r\nHost x\r\n\r\n`;
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => exchange(target, i % 2 ? bad : good)));
    for (const [i, outcome] of outcomes.entries()) {
      assert.equal(outcome.status, i % 2 ? 400 : 200, `${name}, connection ${i}: ${outcome.text.slice(0, 80)}`);
    }
    for (const socket of idle) socket.destroy();
  }
  await assertServing(patient!);
});
