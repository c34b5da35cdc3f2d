import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { SettingsOverrides } from '../../../runtime/config/settings.ts';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import type { EventBody } from '../../../runtime/posting/events.ts';
import { eventTypeOfLevel, loggingTap } from '../../../runtime/posting/loggers.ts';
import { EventPoster } from '../../../runtime/posting/poster.ts';

const kex = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'kex1', namespace: 'ns1', uid: 'u-1' },
};

async function logged(
  overrides: SettingsOverrides,
  write: (root: Logger) => void,
  verbosity: 'normal' | 'verbose' = 'verbose',
) {
  const posted: EventBody[] = [];
  const settings = defaultSettings(overrides);
  const config = new LogConfig({ verbosity, sinks: [] });
  const poster = new EventPoster(
    { post: async (body) => { posted.push(body); }, settings, logger: new Logger(config, 'kopf.posting') }
  );
  write(new Logger(config).withTaps(loggingTap(poster)));
  await poster.idle();
  return posted.map((b) => [b.type, b.reason, b.message]);
}

function sample(root: Logger): void {
  const logger = root.forObject(kex);
  logger.debug('d');
  logger.info("Handler 'x' succeeded.");
  logger.warning('w');
  logger.error('e');
  logger.critical('c');
  root.child('kopf.activities.startup').error('about no object');
}

test('by default (Kopf 1.44) log records are not posted', async () => {
  assert.deepEqual(await logged({}, sample), []);
});

test('with posting.loggers, object records at or above posting.level become "Logging" events', async () => {
  assert.deepEqual(await logged({ posting: { loggers: true } }, sample), [
    ['Normal', 'Logging', "Handler 'x' succeeded."],
    ['Warning', 'Logging', 'w'],
    ['Error', 'Logging', 'e'],
    ['Fatal', 'Logging', 'c'],
  ]);
  assert.deepEqual(
    (await logged({ posting: { loggers: true, level: 10 } }, sample)).map((e) => e[0]),
    ['Debug', 'Normal', 'Warning', 'Error', 'Fatal'],
  );
});

test('records the logger does not let through are not posted either, whatever posting.level says', async () => {
  assert.deepEqual(
    (await logged({ posting: { loggers: true, level: 10 } }, sample, 'normal')).map((e) => e[0]),
    ['Normal', 'Warning', 'Error', 'Fatal'],
  );
});

test('posting.enabled=false wins over posting.loggers', async () => {
  assert.deepEqual(await logged({ posting: { loggers: true, enabled: false } }, sample), []);
});

test('local object loggers never post; the error stack is part of the message', async () => {
  const error = new Error('boom');
  error.stack = 'Error: boom\n    at h (x.ts:1:1)';
  assert.deepEqual(await logged({ posting: { loggers: true } }, (root) => {
    root.forObject(kex, { local: true }).error('local');
    root.forObject(kex).exception("Handler 'x' failed with an exception. Will retry.", error);
  }), [['Error', 'Logging', "Handler 'x' failed with an exception. Will retry.\nError: boom\n    at h (x.ts:1:1)"]]);
});

test('event types by level round up to the next named level', () => {
  assert.deepEqual([5, 10, 15, 20, 25, 30, 40, 45, 50, 60].map(eventTypeOfLevel),
    ['Debug', 'Debug', 'Normal', 'Normal', 'Warning', 'Warning', 'Error', 'Fatal', 'Fatal', 'Level 60']);
});
