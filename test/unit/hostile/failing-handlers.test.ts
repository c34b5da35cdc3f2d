/**
 * A server made by servers/http.ts whose handler fails: the failure is a bug, not the caller's,
 * so it is logged and answered 500 (or the connection closed, if the answer had begun); it never
 * escapes as an unhandled rejection, and the server goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { ERROR } from '../../../runtime/logging/levels.ts';
import { close, createHttpServer, listen } from '../../../runtime/servers/http.ts';
import { closed, exchange, open } from './http.ts';

test('a handler that throws, rejects, or fails mid-answer: 500 or a closed connection, logged; the server goes ' +
  'on', async () => {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.test');
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.url === '/throws') throw new Error('a bug in the handler');
    if (request.url === '/midway') {
      response.writeHead(200, { 'content-length': 100 });
      response.write('partial');
      await Promise.reject(new Error('a bug after the answer began'));
    }
    response.end('ok');
  };
  const server = await createHttpServer(handle, { logger });
  try {
    const target = { host: '127.0.0.1', port: await listen(server, '127.0.0.1', 0) };
    const thrown = await exchange(target, 'GET /throws HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(thrown.status, 500);
    const midway = open(target);
    const cut = closed(midway);
    midway.write('GET /midway HTTP/1.1\r\nHost: x\r\n\r\n');
    const { status, text } = await cut;
    assert.equal(status, 200);
    assert.ok(text.endsWith('partial'), 'closed after what was sent, short of its length');
    assert.equal((await exchange(target, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')).status, 200);
    const errors = capture.records.filter((r) => r.level === ERROR).map((r) => r.message);
    assert.deepEqual(errors, [
      'A request (GET "/throws") failed unexpectedly: a bug in the handler',
      'A request (GET "/midway") failed unexpectedly: a bug after the answer began',
    ]);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', record);
    await close(server);
  }
});
