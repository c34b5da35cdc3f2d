import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { DEBUG, ERROR, INFO, WARNING, levelOfVerbosity } from '../../../runtime/logging/levels.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import type { LogRecord } from '../../../runtime/logging/log-records.ts';
import { captureLogs, streamSink } from '../../../runtime/logging/sinks.ts';

const body = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'kex1', namespace: 'ns1', uid: 'u-1' },
};

test('verbosity sets the threshold: quiet 30, normal 20, verbose and debug 10', () => {
  assert.deepEqual(
    (['quiet', 'normal', 'verbose', 'debug'] as const).map(levelOfVerbosity),
    [WARNING, INFO, DEBUG, DEBUG],
  );
  for (
    const [verbosity, expected] of [
      ['quiet', ['w', 'e']],
      ['normal', ['i', 'w', 'e']],
      ['verbose', ['d', 'i', 'w', 'e']],
    ] as const
  ) {
    const capture = captureLogs();
    const logger = new Logger(new LogConfig({ verbosity, sinks: [capture.sink] }));
    logger.debug('d'); logger.info('i'); logger.warning('w'); logger.error('e');
    assert.deepEqual(capture.messages(), expected, verbosity);
  }
  assert.equal(new LogConfig({ verbosity: 'quiet', level: DEBUG }).level, DEBUG, 'an explicit level wins');
});

test('object loggers are named kopf.objects and carry a copy of the object\'s identity', () => {
  const capture = captureLogs();
  const root = new Logger(new LogConfig({ sinks: [capture.sink] }));
  const mutable = structuredClone(body);
  const logger = root.forObject(mutable);
  mutable.metadata.name = 'renamed';
  logger.info('hello');
  assert.equal(capture.records[0].name, 'kopf.objects');
  assert.deepEqual(
    capture.records[0].ref,
    { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'kex1', uid: 'u-1', namespace: 'ns1' },
  );
  assert.equal(capture.records[0].local, undefined);
  root.forObject(body, { local: true }).info('local');
  assert.equal(capture.records[1].local, true);
});

test('terse loggers hide info unless verbose, and never hide warnings', () => {
  const capture = captureLogs();
  const normal = new Logger(new LogConfig({ sinks: [capture.sink] })).forObject(body, { terse: true });
  normal.debug('d'); normal.info('i'); normal.warning('w');
  const verbose = new Logger(new LogConfig({ verbosity: 'verbose', sinks: [capture.sink] })).forObject(
    body,
    { terse: true },
  );
  verbose.debug('d2'); verbose.info('i2');
  assert.deepEqual(capture.messages(), ['w', 'i2']);
});

test('taps follow the logger tree and see only records above the threshold', () => {
  const tapped: LogRecord[] = [];
  const root = new Logger(new LogConfig({ sinks: [] }), 'kopf', { taps: [(r) => tapped.push(r)] });
  root.child('kopf.activities.startup').info('a');
  root.forObject(body).debug('hidden');
  root.forObject(body).error('b');
  assert.deepEqual(
    tapped.map((r) => [r.name, r.message, r.level]),
    [['kopf.activities.startup', 'a', INFO], ['kopf.objects', 'b', ERROR]],
  );
});

test('withTaps adds receivers without touching the original logger', () => {
  const first: string[] = [];
  const second: string[] = [];
  const base = new Logger(new LogConfig({ sinks: [] }), 'kopf', { taps: [(r) => first.push(r.message)] });
  const extended = base.withTaps((r) => second.push(r.message));
  base.info('base');
  extended.forObject(body).info('extended');
  assert.deepEqual(first, ['base', 'extended']);
  assert.deepEqual(second, ['extended']);
});

test('a failing sink or tap never fails the caller, and other sinks still get the record', () => {
  const capture = captureLogs();
  const broken = () => { throw new Error('sink is broken'); };
  const logger = new Logger(new LogConfig({ sinks: [broken, capture.sink] }), 'kopf', { taps: [broken] });
  logger.info('still logged');
  assert.deepEqual(capture.messages(), ['still logged']);
});

test('two configs in one process stay separate', () => {
  const a = captureLogs();
  const b = captureLogs();
  const la = new Logger(new LogConfig({ verbosity: 'quiet', sinks: [a.sink] }));
  const lb = new Logger(new LogConfig({ verbosity: 'verbose', format: 'json', sinks: [b.sink] }));
  la.info('a-info'); la.warning('a-warn');
  lb.debug('b-debug');
  assert.deepEqual(a.messages(), ['a-warn']);
  assert.deepEqual(b.messages(), ['b-debug']);
  assert.match(b.lines[0], /^\{"message": "b-debug"/);
});

test('the stream sink writes one line per record; text is rendered once for all sinks', () => {
  const written: string[] = [];
  let renders = 0;
  const config = new LogConfig(
    {
      format: 'plain',
      sinks: [
        streamSink({ write: (s: string) => written.push(s) }, { batch: false }),
        (_r, render) => { render(); render(); },
      ],
    }
  );
  const original = config.render.bind(config);
  config.render = (r) => { renders++; return original(r); };
  new Logger(config).forObject(body).info('one');
  assert.deepEqual(written, ['[ns1/kex1] one\n']);
  assert.equal(renders, 1);
});

test('the stream sink gathers the lines of one turn of the event loop into one write', async () => {
  const written: string[] = [];
  const logger = new Logger(
    new LogConfig({ format: 'plain', sinks: [streamSink({ write: (s: string) => written.push(s) })] })
  );
  logger.info('one');
  logger.info('two');
  assert.deepEqual(written, [], 'nothing is written within the turn');
  await new Promise((resolve) => setImmediate(resolve));
  logger.info('three');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(written, ['one\ntwo\n', 'three\n']);
});

test('the stream sink writes at once what exceeds 64 KiB, keeping the order', async () => {
  const written: string[] = [];
  const logger = new Logger(
    new LogConfig({ format: 'plain', sinks: [streamSink({ write: (s: string) => written.push(s) })] })
  );
  const long = 'x'.repeat(40 * 1024);
  logger.info(long);
  logger.info(long);
  logger.info('tail');
  assert.deepEqual(written, [`${long}\n${long}\n`]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(written.slice(1), ['tail\n']);
});

test('lines gathered by the stream sink are written when the process exits in the same turn', () => {
  const logging = new URL('../../../runtime/logging/index.ts', import.meta.url).href;
  const script = `
    const { Logger, LogConfig } = await import(${JSON.stringify(logging)});
    const logger = new Logger(new LogConfig({ format: 'plain' }));
    logger.info('before exit');
    logger.error('the last words');
    process.exit(3);
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 3, run.stderr);
  assert.equal(run.stderr, 'before exit\nthe last words\n');
});

test('waitFor resolves with a record already captured or yet to come, and rejects after its timeout', async () => {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ sinks: [capture.sink] }));
  logger.info('early');
  assert.equal((await capture.waitFor('early')).message, 'early');
  const later = capture.waitFor(/^Handler '.+' succeeded\.$/);
  setImmediate(() => logger.info("Handler 'h' succeeded."));
  assert.equal((await later).message, "Handler 'h' succeeded.");
  const byPredicate = capture.waitFor((r) => r.level >= ERROR);
  setImmediate(() => logger.error('bad'));
  assert.equal((await byPredicate).message, 'bad');
  await assert.rejects(
    capture.waitFor('never', { timeout: 0.01 }),
    { message: 'No log record matching never within 0.01 seconds.' },
  );
});
