import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogConfig, type LogConfigOptions } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import { captureLogs } from '../../../runtime/logging/sinks.ts';

// Expected lines were produced by Kopf 1.44.6's own formatters for the same records.
process.env.TZ = 'UTC';
const T = Date.UTC(2026, 10, 22, 15, 39, 55, 651);
const namespaced = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'kex1', namespace: 'ns1', uid: 'u-1' },
};
const clusterScoped = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nsx', uid: 'u-2' } };

function lines(options: LogConfigOptions, write: (root: Logger) => void): string[] {
  const capture = captureLogs();
  write(new Logger(new LogConfig({ verbosity: 'verbose', clock: () => T, ...options, sinks: [capture.sink] })));
  return [...capture.lines];
}

function sample(root: Logger): void {
  root.forObject(namespaced).info("Handler 'x' succeeded.");
  root.forObject(clusterScoped).warning('cluster thing');
  root.child('kopf._core.engines.very_long_module_name_x').debug('framework msg');
  root.child('kopf.activities.startup').critical('crit');
  root.child('kopf.x').log(25, 'custom');
}

test('full: time, name padded and cut to 20, level padded and cut to 8, prefixed message', () => {
  assert.deepEqual(lines({ format: 'full' }, sample), [
    "[2026-11-22 15:39:55,651] kopf.objects         [INFO    ] [ns1/kex1] Handler 'x' succeeded.",
    '[2026-11-22 15:39:55,651] kopf.objects         [WARNING ] [nsx] cluster thing',
    '[2026-11-22 15:39:55,651] kopf._core.engines.v [DEBUG   ] framework msg',
    '[2026-11-22 15:39:55,651] kopf.activities.star [CRITICAL] crit',
    '[2026-11-22 15:39:55,651] kopf.x               [Level 25] custom',
  ]);
});

test('full is the default format; its time is local, as Python\'s asctime', () => {
  process.env.TZ = 'Asia/Kolkata';
  try {
    assert.deepEqual(
      lines({}, (root) => root.info('hello')),
      ['[2026-11-22 21:09:55,651] kopf                 [INFO    ] hello'],
    );
  } finally {
    process.env.TZ = 'UTC';
  }
});

test('plain: the message only, with the object prefix', () => {
  assert.deepEqual(
    lines({ format: 'plain' }, sample),
    ["[ns1/kex1] Handler 'x' succeeded.", '[nsx] cluster thing', 'framework msg', 'crit', 'custom'],
  );
});

test('--no-log-prefix drops the object prefix from text', () => {
  assert.deepEqual(
    lines({ format: 'plain', prefix: false }, sample),
    ["Handler 'x' succeeded.", 'cluster thing', 'framework msg', 'crit', 'custom'],
  );
});

test('json: Python\'s json.dumps layout, the object ref with nulls, severity rounded up, no prefix by default', () => {
  assert.deepEqual(lines({ format: 'json' }, sample), [
    '{"message": "Handler \'x\' succeeded.", "timestamp": "2026-11-22T15:39:55.651000+00:00", "object": ' +
      '{"apiVersion": "kopf.dev/v1", "kind": "KopfExample", "name": "kex1", "uid": "u-1", "namespace": "ns1"}, ' +
        '"severity": "info"}',
    '{"message": "cluster thing", "timestamp": "2026-11-22T15:39:55.651000+00:00", "object": {"apiVersion": "v1", ' +
      '"kind": "Namespace", "name": "nsx", "uid": "u-2", "namespace": null}, "severity": "warn"}',
    '{"message": "framework msg", "timestamp": "2026-11-22T15:39:55.651000+00:00", "severity": "debug"}',
    '{"message": "crit", "timestamp": "2026-11-22T15:39:55.651000+00:00", "severity": "fatal"}',
    '{"message": "custom", "timestamp": "2026-11-22T15:39:55.651000+00:00", "severity": "warn"}',
  ]);
});

test('json with --log-prefix and a custom refkey; non-ASCII escaped as Python does', () => {
  const out = lines({ format: 'json', prefix: true, refkey: 'k8s' }, (root) => {
    root.forObject({ kind: 'X', metadata: { name: 'a' } }).info('h\u00e9llo "q" \u2603 \u{1F600} \x7f');
  });
  assert.deepEqual(out, [
    '{"message": "[a] h\\u00e9llo \\"q\\" \\u2603 \\ud83d\\ude00 \\u007f", "timestamp": ' +
      '"2026-11-22T15:39:55.651000+00:00", "k8s": {"apiVersion": null, "kind": "X", "name": "a", "uid": null, ' +
        '"namespace": null}, "severity": "info"}',
  ]);
});

test('an error\'s stack follows the text, or goes to exc_info in json', () => {
  const error = new Error('boom');
  error.stack = 'Error: boom\n    at here (file.ts:1:1)';
  const write = (root: Logger) => root.forObject(namespaced).exception('failed', error);
  assert.deepEqual(lines({ format: 'plain' }, write), ['[ns1/kex1] failed\nError: boom\n    at here (file.ts:1:1)']);
  assert.deepEqual(
    lines({ format: 'full' }, write),
    [
      '[2026-11-22 15:39:55,651] kopf.objects         [ERROR   ] [ns1/kex1] failed\nError: boom\n    at here ' +
        '(file.ts:1:1)'
    ],
  );
  assert.deepEqual(lines({ format: 'json' }, write), [
    '{"message": "failed", "exc_info": "Error: boom\\n    at here (file.ts:1:1)", "timestamp": ' +
      '"2026-11-22T15:39:55.651000+00:00", "object": {"apiVersion": "kopf.dev/v1", "kind": "KopfExample", "name": ' +
        '"kex1", "uid": "u-1", "namespace": "ns1"}, "severity": "error"}',
  ]);
  // Any value can be thrown: it is shown as inspected, and said to have no stack.
  assert.deepEqual(
    lines({ format: 'plain' }, (root) => root.warning('odd', 'not an Error')),
    ["odd\n'not an Error' was thrown: not an Error, so without a stack"],
  );
  assert.deepEqual(
    lines({ format: 'plain' }, (root) => root.warning('odd', { code: 42 })),
    ['odd\n{ code: 42 } was thrown: not an Error, so without a stack'],
  );
});

test('sub-millisecond clocks give microseconds in json', () => {
  assert.match(
    lines({ format: 'json', clock: () => T + 0.25 }, (root) => root.info('x'))[0],
    /"timestamp": "2026-11-22T15:39:55\.651250\+00:00"/,
  );
});

test('text output keeps each record on one line: control characters from the cluster are escaped', () => {
  const forged = {
    apiVersion: 'v1',
    kind: 'X',
    metadata: { name: 'a\n[2026-11-22 15:39:55,651] kopf.objects [INFO] \x1b[31mforged', namespace: 'n\rs', uid: 'u' },
  };
  const write = (root: Logger) => root.forObject(forged).info('Handler \'x\' failed: \u2028\x07\x9b');
  const escaped =
    '[n\\rs/a\\n[2026-11-22 15:39:55,651] kopf.objects [INFO] \\x1b[31mforged] Handler \'x\' failed: \\u2028\\x07\\x9b';
  assert.deepEqual(lines({ format: 'plain' }, write), [escaped]);
  assert.deepEqual(
    lines({ format: 'full' }, write),
    [`[2026-11-22 15:39:55,651] kopf.objects         [INFO    ] ${escaped}`],
  );
  assert.deepEqual(lines({ format: 'plain' }, (root) => root.info('tabs\tstay')), ['tabs\tstay']);
  const json = lines({ format: 'json' }, write)[0]!;
  assert.ok(!/[\x00-\x1f]/.test(json), 'JSON escapes them as JSON does');
});

test('an error\'s message is escaped in text output; its stack frames stay on their lines', () => {
  const error = new Error('Conflict on "a\n    at forged (x.ts:1:1)\x1b[2J"');
  error.stack = `${String(error)}\n    at here (file.ts:1:1)`;
  assert.deepEqual(lines({ format: 'plain' }, (root) => root.exception('failed', error)), [
    'failed\nError: Conflict on "a\\n    at forged (x.ts:1:1)\\x1b[2J"\n    at here (file.ts:1:1)',
  ]);
  const renamed = new Error('x');
  renamed.stack = 'Custom header\nwith \x1b[31m\n    at here (file.ts:1:1)';
  assert.deepEqual(lines({ format: 'plain' }, (root) => root.exception('failed', renamed)), [
    'failed\nCustom header\\nwith \\x1b[31m\n    at here (file.ts:1:1)',
  ]);
});
