import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError, ResponseParser } from '../../../runtime/kube/http/parser.ts';
import type { ResponseHead } from '../../../runtime/kube/http/parser.ts';

interface Parsed {
  heads: ResponseHead[];
  body: string;
  ends: boolean[];
}

function parserOf(): { parser: ResponseParser; parsed: Parsed } {
  const parsed: Parsed = { heads: [], body: '', ends: [] };
  const parser = new ResponseParser({
    // The head as a plain record: its headers are read only here, after the body was framed.
    head: (head) => parsed.heads.push({ status: head.status, headers: head.headers }),
    data: (chunk) => { parsed.body += chunk.toString('latin1'); },
    end: (reusable) => parsed.ends.push(reusable),
  });
  return { parser, parsed };
}

/**
 * Feeds `wire` split at `at` (and at every `step` after it), as sockets may deliver it: each piece
 * in the same memory, overwritten once pushed, as a socket reading into one buffer reuses it.
 */
function feed(wire: string, splits: number[], method = 'GET'): Parsed {
  const { parser, parsed } = parserOf();
  parser.expect(method);
  const bytes = Buffer.from(wire, 'latin1');
  const reused = Buffer.alloc(bytes.length);
  let from = 0;
  for (const at of [...splits, bytes.length]) {
    if (at > from) {
      const piece = reused.subarray(0, at - from);
      bytes.copy(piece, 0, from, at);
      parser.push(piece);
      piece.fill('#');
    }
    from = Math.max(from, at);
  }
  return parsed;
}

const LENGTH =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Twice: a\r\nx-twice: ' +
    'b\r\n\r\n{"a":"bcd"}';
const CHUNKED =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: ' +
    'chunked\r\n\r\n4;ext=1\r\n{"a"\r\nB\r\n:"bcdefghi"\r\n1\r\n}\r\n0\r\nTrailer: x\r\n\r\n';

test('a body framed by Content-Length arrives whole however the socket splits it', () => {
  for (let at = 0; at <= LENGTH.length; at++) {
    const parsed = feed(LENGTH, [at]);
    assert.deepEqual(
      parsed.heads,
      [{ status: 200, headers: { 'content-type': 'application/json', 'content-length': '11', 'x-twice': 'a, b' } }],
      `split at ${at}`,
    );
    assert.equal(parsed.body, '{"a":"bcd"}', `split at ${at}`);
    assert.deepEqual(parsed.ends, [true], `split at ${at}`);
  }
});

test('a chunked body (extensions, trailers) arrives whole however the socket splits it', () => {
  for (let at = 0; at <= CHUNKED.length; at++) {
    for (const step of [1, 3, 7]) {
      const splits = Array.from({ length: Math.ceil((CHUNKED.length - at) / step) }, (_, i) => at + i * step);
      const parsed = feed(CHUNKED, splits);
      assert.equal(parsed.body, '{"a":"bcdefghi"}', `split at ${at} every ${step}`);
      assert.deepEqual(parsed.ends, [true], `split at ${at} every ${step}`);
    }
  }
});

test('informational responses are skipped; 204, 304 and HEAD have no body', () => {
  const continued = feed('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}', []);
  assert.deepEqual(continued.heads.map((h) => h.status), [201]);
  assert.equal(continued.body, '{}');
  for (const status of [204, 304]) assert.deepEqual(feed(`HTTP/1.1 ${status} X\r\n\r\n`, []).ends, [true]);
  assert.deepEqual(feed('HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n', [], 'HEAD').ends, [true]);
});

test('a body without a length ends with the connection, which cannot be reused; nor after Connection: close', () => {
  const { parser, parsed } = parserOf();
  parser.expect('GET');
  parser.push(Buffer.from('HTTP/1.0 200 OK\r\n\r\nsome'));
  parser.push(Buffer.from(' text'));
  assert.deepEqual(parsed.ends, []);
  assert.equal(parser.close(), undefined);
  assert.equal(parsed.body, 'some text');
  assert.deepEqual(parsed.ends, [false]);
  assert.deepEqual(feed('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', []).ends, [false]);
});

test('a connection closed mid-response is a hang-up, retryable like other network errors', () => {
  const { parser } = parserOf();
  parser.expect('GET');
  parser.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"a"'));
  const error = parser.close();
  assert.equal((error as { code?: string } | undefined)?.code, 'ECONNRESET');
  const idle = parserOf().parser;
  assert.equal(idle.close(), undefined);
});

test('the body is framed by its headers in any letter case, and repeated lengths are joined and refused', () => {
  const mixed = feed('HTTP/1.1 200 OK\r\ncontent-LENGTH: 2\r\nCONNECTION: Close\r\n\r\n{}', []);
  assert.equal(mixed.body, '{}');
  assert.deepEqual(mixed.ends, [false]);
  const chunked = feed('HTTP/1.1 200 OK\r\nTRANSFER-encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n', []);
  assert.equal(chunked.body, '{}');
  assert.deepEqual(chunked.ends, [true]);
  assert.throws(
    () => feed('HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 3\r\n\r\n{}', []),
    /Content-Length: 2, 3/,
  );
});

test('headers are read as they came when asked for, after the response is framed', () => {
  let head: ResponseHead | undefined;
  const lazy = new ResponseParser({ head: (h) => { head = h; }, data: () => {}, end: () => {} });
  lazy.expect('GET');
  lazy.push(
    Buffer.from('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n')
  );
  assert.equal(head?.status, 429);
  assert.deepEqual(head?.headers, { 'retry-after': '3', 'x-a': '1, 2', 'content-length': '0' });
  assert.equal(head?.headers, head?.headers, 'parsed once');
});

test('what is not HTTP is a ProtocolError: a bad status line, a bad chunk, bytes nobody asked for', () => {
  assert.throws(() => feed('SSH-2.0-OpenSSH\r\n\r\n', []), ProtocolError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', []), ProtocolError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', []), ProtocolError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY', []), ProtocolError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', []), ProtocolError);
  assert.throws(() => feed('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nextra', []), ProtocolError);
  const { parser } = parserOf();
  assert.throws(() => parser.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\n')), ProtocolError);
});
