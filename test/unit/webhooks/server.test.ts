/**
 * WebhookServer over real HTTPS on loopback: the client config it yields (its CA verifies the
 * server), routing by path to handler ids, and what it answers to requests it cannot serve.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { once } from 'node:events';
import { freePort } from '../../e2e/ports.ts';
import { test } from 'node:test';
import { connect } from 'node:tls';
import type { WebhookClientConfig, WebhookRequest } from '../../../runtime/config/admission.ts';
import { DEBUG, LogConfig, Logger, WARNING, captureLogs } from '../../../runtime/logging/index.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';

const logger = new Logger(new LogConfig({ sinks: [] }), 'kopf.admission');

/** Serves with a responder that echoes what it got; runs `body` with the first client config. */
type Body = (config: WebhookClientConfig, got: WebhookRequest[]) => Promise<void>;

async function withServer(server: WebhookServer, body: Body, log = logger): Promise<void> {
  const got: WebhookRequest[] = [];
  const stop = new AbortController();
  const echo = async (req: WebhookRequest) => {
    got.push(req);
    return { status: 200, body: { echoed: req.webhook ?? null } };
  };
  const configs = server.serve(echo, { signal: stop.signal, logger: log });
  const iterator = configs[Symbol.asyncIterator]();
  const first = await iterator.next();
  try {
    await body(first.value as WebhookClientConfig, got);
  } finally {
    stop.abort();
    assert.equal((await iterator.next()).done, true, 'the server ends when stopped');
  }
}

interface Answer {
  status: number;
  body: { message?: string; echoed?: string | null };
}

function call(config: WebhookClientConfig, path: string, method = 'POST', data = '{}'): Promise<Answer> {
  const url = new URL(path, `${config.url}/`);
  const ca = Buffer.from(config.caBundle!, 'base64').toString();
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'x-test': 'yes' };
    const req = request(url, { method, ca, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

test('the generated CA verifies the server; the path after the prefix names the handler; headers pass', async () => {
  await withServer(new WebhookServer({ addr: '127.0.0.1', path: '/hooks/' }), async (config, got) => {
    assert.match(config.url!, /^https:\/\/127\.0\.0\.1:\d+\/hooks$/);
    assert.deepEqual(await call(config, 'check_fn'), { status: 200, body: { echoed: 'check_fn' } });
    assert.deepEqual(await call(config, 'fix/spec.field'), { status: 200, body: { echoed: 'fix/spec.field' } });
    assert.equal(got[0].headers['x-test'], 'yes');
    assert.equal(got[0].body, '{}');
    assert.deepEqual(got[0].sslpeer, {});
  });
});

test('requests it cannot serve get an HTTP error with a Status saying why', async () => {
  await withServer(new WebhookServer({ addr: '127.0.0.1', path: '/hooks' }), async (config) => {
    const elsewhere = await call(config, '/other/x');
    assert.equal(elsewhere.status, 404);
    assert.match(elsewhere.body.message!, /No webhooks are served at "\/other\/x"/);
    const get = await call(config, 'x', 'GET', '');
    assert.equal(get.status, 405);
    assert.match(get.body.message!, /POST requests only, not GET/);
    const escaped = await call(config, '%E0%A4%A');
    assert.equal(escaped.status, 400);
  });
});

test('a path or a method no webhook serves is the caller\'s mistake, at debug level; other refusals warn', async () => {
  const capture = captureLogs();
  const log = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.admission');
  await withServer(new WebhookServer({ addr: '127.0.0.1', path: '/hooks' }), async (config) => {
    await call(config, '/other/x');
    await call(config, 'x', 'GET', '');
    await call(config, '%E0%A4%A');
  }, log);
  const refusals = capture.records.filter((r) => r.message.startsWith('A webhook request is refused'));
  assert.deepEqual(refusals.map((r) => [r.message.slice(0, 34), r.level]), [
    ['A webhook request is refused (404)', DEBUG],
    ['A webhook request is refused (405)', DEBUG],
    ['A webhook request is refused (400)', WARNING],
  ]);
});

test('behind a Service: the client config names it, and the certificate covers its DNS names', async () => {
  const port = await freePort();
  const service = { namespace: 'ops', name: 'op' };
  const server = new WebhookServer({ addr: '127.0.0.1', port, service, path: '/hooks' });
  await withServer(server, async (config) => {
    assert.deepEqual(Object.keys(config).sort(), ['caBundle', 'service']);
    assert.deepEqual(config.service, { namespace: 'ops', name: 'op', path: '/hooks', port: 443 });
    const ca = Buffer.from(config.caBundle!, 'base64').toString();
    for (const servername of ['op.ops.svc', 'op.ops.svc.cluster.local']) {
      const socket = connect({ host: '127.0.0.1', port, servername, ca });
      await once(socket, 'secureConnect');
      socket.destroy();
    }
  });
});

test('certificate files go together', () => {
  assert.throws(() => new WebhookServer({ certFile: 'cert.pem' }), /`certFile` and `keyFile` go together/);
});
