import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { OperatorSettings } from '../../../runtime/config/settings.ts';
import { SettingsError, validateSettings } from '../../../runtime/config/validation.ts';
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from '../../../runtime/progress/index.ts';

test('defaults are Kopf 1.44\'s (and 0 for readCoalescing, false for streamingLists, 10000 for heldLimit: not '
  + 'Kopf\'s), in seconds', () => {
  const s = defaultSettings();
  assert.deepEqual(s.process, { ultimateExitingTimeout: 600 });
  assert.deepEqual(s.posting, {
    enabled: true,
    loggers: false,
    level: 20,
    reportingComponent: 'kopf',
    reportingInstance: 'dev',
    eventNamePrefix: 'kopf-event-',
  });
  assert.deepEqual(
    s.peering,
    {
      name: 'default',
      stealth: false,
      priority: 0,
      lifetime: 60,
      mandatory: false,
      standalone: false,
      clusterwide: false,
    },
  );
  assert.deepEqual(
    s.watching,
    {
      serverTimeout: null, clientTimeout: null, connectTimeout: null, reconnectBackoff: 0.1, inactivityTimeout: 70,
      streamingLists: false,
    },
  );
  assert.deepEqual(
    s.queueing,
    {
      workerLimit: 64,
      heldLimit: 10000,
      idleTimeout: 5,
      exitTimeout: 2,
      errorDelays: [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610],
    },
  );
  assert.deepEqual(s.scanning, { disabled: false });
  assert.deepEqual(s.admission, { server: null, managed: null });
  assert.deepEqual(s.execution, { defaultBackoff: 60 });
  assert.deepEqual(
    s.networking,
    {
      requestTimeout: 300,
      connectTimeout: null,
      errorBackoffs: [1, 1, 2, 3, 5, 8, 13, 21],
      enforceRetryAfter: false,
      readCoalescing: 0,
    },
  );
  assert.equal(s.persistence.finalizer, 'kopf.zalando.org/KopfFinalizerMarker');
  assert.equal(s.persistence.consistencyTimeout, 5);
  assert.ok(s.persistence.progressStorage instanceof SmartProgressStorage);
  assert.ok(s.persistence.diffbaseStorage instanceof AnnotationsDiffBaseStorage);
  assert.deepEqual(s.background, { cancellationPolling: 60, instantExitTimeout: null, instantExitZeroTimeCycles: 10 });
  assert.deepEqual(s.status, { conditions: false });
  assert.throws(() => defaultSettings({ status: { conditions: 1 as unknown as boolean } }),
    { message: 'settings.status.conditions must be true or false; got 1.' });
});

test('every call makes a fresh tree: operators never share settings', () => {
  const a = defaultSettings();
  const b = defaultSettings();
  a.posting.enabled = false;
  (a.queueing.errorDelays as number[]).push(999);
  assert.equal(b.posting.enabled, true);
  assert.equal([...b.queueing.errorDelays].length, 15);
  assert.notEqual(a.persistence.progressStorage, b.persistence.progressStorage);
});

test('overrides replace single fields and keep the rest of the group', () => {
  const s = defaultSettings({ posting: { level: 30, reportingInstance: 'pod-1' }, peering: { standalone: true } });
  assert.equal(s.posting.level, 30);
  assert.equal(s.posting.reportingInstance, 'pod-1');
  assert.equal(s.posting.enabled, true);
  assert.equal(s.peering.standalone, true);
  assert.equal(s.peering.name, 'default');
});

test('bad values fail with the setting named and the expectation stated', () => {
  assert.throws(() => defaultSettings({ queueing: { idleTimeout: -1 } }), {
    name: 'SettingsError',
    message: 'settings.queueing.idleTimeout must be a non-negative number of seconds; got -1.',
  });
  assert.throws(() => defaultSettings({ posting: { enabled: 'yes' as unknown as boolean } }), {
    message: 'settings.posting.enabled must be true or false; got "yes".',
  });
  assert.throws(
    () => defaultSettings({ queueing: { workerLimit: 0 } }),
    /settings\.queueing\.workerLimit must be a positive integer or null; got 0\./,
  );
  assert.throws(
    () => defaultSettings({ networking: { errorBackoffs: [1, -2] } }),
    /settings\.networking\.errorBackoffs must be an array .* got \[1, -2\]\./,
  );
  assert.throws(
    () => defaultSettings({ watching: { inactivityTimeout: Number.NaN } }),
    /inactivityTimeout must be a positive number of seconds; got NaN/,
  );
  assert.throws(() => defaultSettings({ posting: { level: 2.5 } }), /posting\.level must be a log level/);
});

test('typos are reported rather than ignored', () => {
  const typo = { posting: { enable: false } } as unknown as Parameters<typeof defaultSettings>[0];
  assert.throws(() => defaultSettings(typo), { message: 'settings.posting.enable is not a setting.' });
  const group = { postings: { enabled: false } } as unknown as Parameters<typeof defaultSettings>[0];
  assert.throws(() => defaultSettings(group), { message: 'settings.postings is not a settings group.' });
});

test('all problems at once, so one run shows everything to fix', () => {
  const s = defaultSettings();
  s.execution.defaultBackoff = -5;
  s.peering.name = '';
  try {
    validateSettings(s);
    assert.fail('expected a SettingsError');
  } catch (e) {
    assert.ok(e instanceof SettingsError);
    assert.equal(e.message, 'settings.peering.name must be a non-empty string; got "". '
      + 'settings.execution.defaultBackoff must be a non-negative number of seconds; got -5.');
  }
});

test('delays may be any re-iterable, but not a one-off iterator that would be empty on the second read', () => {
  const s: OperatorSettings = defaultSettings();
  s.networking.errorBackoffs = new Set([1, 2]);
  validateSettings(s);
  s.networking.errorBackoffs = { *[Symbol.iterator]() { yield 1; yield 2; } };
  validateSettings(s);
  s.networking.errorBackoffs = [1, 2].values();
  assert.throws(() => validateSettings(s), /not a one-off iterator/);
});

test('nullable durations accept null; non-nullable ones do not', () => {
  const s = defaultSettings({ process: { ultimateExitingTimeout: null }, watching: { serverTimeout: 30 } });
  assert.equal(s.process.ultimateExitingTimeout, null);
  assert.equal(s.watching.serverTimeout, 30);
  assert.throws(
    () => defaultSettings({ execution: { defaultBackoff: null as unknown as number } }),
    /defaultBackoff must be a non-negative number of seconds; got null/,
  );
});

test('sharding: off by default; a ring\'s name must fit its members\' names; exclusive with leader election', () => {
  assert.deepEqual(
    defaultSettings().sharding,
    { ring: null, namespace: null, leaseDuration: 15, renewDeadline: 10, retryPeriod: 2 },
  );
  assert.equal(defaultSettings({ sharding: { ring: 'shop-1' } }).sharding.ring, 'shop-1');
  for (const ring of ['Shop', 'a_b', '-a', 'a-', '', 'x'.repeat(41), 'a.b']) {
    assert.throws(() => defaultSettings({ sharding: { ring } }), /settings\.sharding\.ring must be a lowercase DNS/);
  }
  assert.throws(
    () => defaultSettings({ sharding: { renewDeadline: 15 } }),
    /settings\.sharding\.renewDeadline must be shorter than leaseDuration/,
  );
  assert.throws(
    () => defaultSettings({ sharding: { ring: 'r' }, leaderElection: { name: 'l' } }),
    /settings\.leaderElection\.name and settings\.sharding\.ring exclude each other/,
  );
});
