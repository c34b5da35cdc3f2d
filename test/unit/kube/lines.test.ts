import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { LineSplitter, parseLine } from '../../../runtime/kube/watching/lines.ts';
import { InactivityError, MalformedStreamError, readJsonLines } from '../../../runtime/kube/watching/reader.ts';

function split(chunks: Buffer[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

test('lines split across chunks, several per chunk, and a last line without a newline', () => {
  const text = '{"a":1}\n{"b":2}\n{"c":3}';
  for (let size = 1; size <= text.length; size++) {
    const chunks = [];
    for (let i = 0; i < text.length; i += size) chunks.push(Buffer.from(text.slice(i, i + size)));
    assert.deepEqual(split(chunks), ['{"a":1}', '{"b":2}', '{"c":3}'], `chunks of ${size}`);
  }
});

test('a line longer than many chunks, with multi-byte characters cut between chunks', () => {
  const value = 'ü€😀'.repeat(50_000);
  const bytes = Buffer.from(JSON.stringify({ value }) + '\n' + '{"next":true}\n');
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 4093) chunks.push(bytes.subarray(i, i + 4093));
  const lines = split(chunks);
  assert.equal(lines.length, 2);
  assert.deepEqual(JSON.parse(lines[0]), { value });
  assert.deepEqual(JSON.parse(lines[1]), { next: true });
});

test('blank lines are skipped', () => {
  assert.equal(parseLine('  \r'), undefined);
  assert.deepEqual(parseLine('{"x":1}\r'), { x: 1 });
});

test('the reader yields everything received before a break, then throws the break', async () => {
  const stream = new PassThrough();
  const got: unknown[] = [];
  const reading = (async () => {
    for await (const value of readJsonLines(stream, { inactivityTimeout: 10_000, bufferSize: 100 })) got.push(value);
  })();
  stream.write('{"n":1}\n{"n"');
  stream.write(':2}\n{"n":3');
  stream.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
  await assert.rejects(reading, /reset/);
  assert.deepEqual(got, [{ n: 1 }, { n: 2 }]);
});

test('a malformed line breaks the stream loudly', async () => {
  const stream = new PassThrough();
  stream.end('{"n":1}\n{oops}\n');
  const got: unknown[] = [];
  await assert.rejects((async () => {
    for await (const value of readJsonLines(stream, { inactivityTimeout: 10_000, bufferSize: 100 })) got.push(value);
  })(), MalformedStreamError);
  assert.deepEqual(got, [{ n: 1 }]);
});

test('silence beyond the inactivity timeout ends the read with InactivityError', async () => {
  const stream = new PassThrough();
  stream.write('{"n":1}\n');
  const got: unknown[] = [];
  await assert.rejects((async () => {
    for await (const value of readJsonLines(stream, { inactivityTimeout: 100, bufferSize: 100 })) got.push(value);
  })(), InactivityError);
  assert.deepEqual(got, [{ n: 1 }]);
  assert.ok(stream.destroyed);
});

test('a full buffer pauses the source until the consumer catches up', async () => {
  const stream = new PassThrough();
  for (let n = 0; n < 50; n++) stream.write(`{"n":${n}}\n`);
  stream.end();
  const reader = readJsonLines(stream, { inactivityTimeout: 10_000, bufferSize: 10 });
  const first = await reader.next();
  assert.deepEqual(first.value, { n: 0 });
  assert.ok(stream.isPaused(), 'paused while 10 values wait');
  const rest: unknown[] = [];
  for await (const value of reader) rest.push(value);
  assert.equal(rest.length, 49);
  assert.deepEqual(rest.at(-1), { n: 49 });
});

test('an abort ends the read cleanly and destroys the stream', async () => {
  const stream = new PassThrough();
  const controller = new AbortController();
  const reader = readJsonLines(stream, { inactivityTimeout: 10_000, bufferSize: 10, signal: controller.signal });
  const pending = reader.next();
  controller.abort();
  assert.deepEqual(await pending, { value: undefined, done: true });
  assert.ok(stream.destroyed);
});
