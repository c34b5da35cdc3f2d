/**
 * What the webhook server exposes, and to whom: loopback only unless `host` or `service` says it
 * is reached from elsewhere (and the log says so); TLS 1.2 or later with AEAD suites only; a body
 * past the limit is refused with 413, and the refusal is logged as the docs say.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect as connectTcp, type Socket } from 'node:net';
import { test } from 'node:test';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import type { WebhookClientConfig } from '../../../runtime/config/admission.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { WebhookServer, type WebhookServerOptions } from '../../../runtime/webhooks/server.ts';
import { freePort } from '../../e2e/ports.ts';
import { closed, open } from './http.ts';

interface Served {
  config: WebhookClientConfig;
  port: number;
  ca: string;
  capture: ReturnType<typeof captureLogs>;
}

async function withServer(options: WebhookServerOptions, body: (served: Served) => Promise<void>): Promise<void> {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.admission');
  const stop = new AbortController();
  const respond = async () => ({ status: 200, body: {} });
  const iterator = new WebhookServer(options).serve(respond, { signal: stop.signal, logger })[Symbol.asyncIterator]();
  const config = (await iterator.next()).value as WebhookClientConfig;
  try {
    const port = options.port ?? Number(new URL(config.url!).port);
    await body({ config, port, ca: Buffer.from(config.caBundle!, 'base64').toString(), capture });
  } finally {
    stop.abort();
    await iterator.next();
  }
}

/** Whether the socket gets to `event` (rather than to an error). */
function reaches(socket: Socket, event: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    socket.once(event, () => resolve(true));
    socket.once('error', () => resolve(false));
  }).finally(() => socket.destroy());
}

/** Whether a TCP connection to this address and port is accepted. */
function reachable(host: string, port: number): Promise<boolean> {
  return reaches(connectTcp(port, host), 'connect');
}

// Any 127.0.0.0/8 address is loopback on Linux, but a server bound to 127.0.0.1 alone does not answer at 127.0.0.2.
test('without host or service, the server listens on 127.0.0.1 only, and says so', async () => {
  await withServer({}, async ({ config, port, capture }) => {
    assert.match(config.url!, /^https:\/\/localhost:\d+$/);
    assert.equal(await reachable('127.0.0.1', port), true);
    assert.equal(await reachable('127.0.0.2', port), false, 'not reachable at another address');
    assert.ok(capture.messages().some((m) => m.startsWith('The webhook server listens on loopback (127.0.0.1) only')));
  });
});

test('with host or service, it listens on all interfaces; with addr, where addr says', async () => {
  const service = { namespace: 'ops', name: 'op' };
  for (const options of [{ host: 'operator.example.test' }, { service, port: await freePort() }]) {
    await withServer(options, async ({ port, capture }) => {
      assert.equal(await reachable('127.0.0.2', port), true, JSON.stringify(options));
      assert.ok(!capture.messages().some((m) => m.includes('loopback')));
    });
  }
  await withServer({ addr: '127.0.0.2' }, async ({ port }) => {
    assert.equal(await reachable('127.0.0.2', port), true);
    assert.equal(await reachable('127.0.0.1', port), false);
  });
});

/** Whether a TLS handshake with these client options succeeds. */
function handshake(port: number, ca: string, options: ConnectionOptions): Promise<boolean> {
  return reaches(connectTls({ host: '127.0.0.1', port, ca, servername: 'localhost', ...options }), 'secureConnect');
}

test('TLS below 1.2 and CBC suites with SHA-1 are refused; AEAD suites on TLS 1.2 and 1.3 are spoken', async () => {
  await withServer({ addr: '127.0.0.1' }, async ({ port, ca }) => {
    // The client allows anything (security level 0), so that a refusal is the server's.
    const anything = { ciphers: 'ALL:@SECLEVEL=0' };
    assert.equal(
      await handshake(port, ca, { ...anything, minVersion: 'TLSv1', maxVersion: 'TLSv1.1' }),
      false,
      'TLS 1.1',
    );
    const tls12 = { ...anything, maxVersion: 'TLSv1.2' } as const;
    for (const cbc of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA']) {
      assert.equal(await handshake(port, ca, { ...tls12, ciphers: `${cbc}:@SECLEVEL=0` }), false, cbc);
    }
    assert.equal(await handshake(port, ca, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), true);
    assert.equal(await handshake(port, ca, { ...tls12, ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' }), true);
    assert.equal(await handshake(port, ca, { minVersion: 'TLSv1.3' }), true);
  });
});

test('a body past 16 MiB is answered 413 and the refusal is logged; the connection is closed', async () => {
  await withServer({ addr: '127.0.0.1' }, async ({ port, ca, capture }) => {
    const refusal = /^A webhook request is refused \(413\): The request is larger than 16777216 bytes\.$/;
    // Declared: refused before a byte of it is read.
    const declared = open({ host: '127.0.0.1', port, ca });
    const answer = closed(declared);
    declared.write(`POST /check HTTP/1.1\r\nHost: x\r\nContent-Length: ${17 * 1024 * 1024}\r\n\r\n`);
    const { status, text } = await answer;
    assert.equal(status, 413);
    assert.match(text, /\r\nconnection: close\r\n/i);
    await capture.waitFor(refusal);
    // Chunked: refused once the limit is passed.
    capture.clear();
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`https://127.0.0.1:${port}/check`, { method: 'POST', ca, servername: 'localhost' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20)); // written before the end: chunked
      req.end();
    });
    assert.equal(chunked, 413);
    await capture.waitFor(refusal);
  });
});
