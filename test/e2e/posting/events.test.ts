/**
 * Events posted by the operator's poster to a real API server, read back through the API layer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import type { SettingsOverrides } from '../../../runtime/config/settings.ts';
import { KubeClient, createObject, listObjects } from '../../../runtime/kube/index.ts';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import { captureLogs } from '../../../runtime/logging/sinks.ts';
import { runWithOperatorContext } from '../../../runtime/posting/operator-context.ts';
import { event, exception, info, warn } from '../../../runtime/posting/helpers.ts';
import { postEventVia } from '../../../runtime/posting/kube.ts';
import { loggingTap } from '../../../runtime/posting/loggers.ts';
import { EventPoster, type EventPosterOptions } from '../../../runtime/posting/poster.ts';
import {
  ConfigMaps,
  Events,
  Namespaces,
  type ConfigMap,
  type Event,
  type Namespace,
} from '../../../runtime/structs/builtins.ts';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';

let plane: ControlPlane;
let client: KubeClient;
let configMap: ConfigMap;
let namespace: Namespace;

before(async () => {
  plane = await startControlPlane();
  client = KubeClient.fromKubeConfig(plane.kubeconfig, { errorBackoffs: [0.2, 0.5, 1] });
  configMap = await createObject(client, ConfigMaps, { metadata: { name: 'subject', namespace: 'default' }, data: {} });
  namespace = await createObject(client, Namespaces, { metadata: { name: 'events-subject' } });
});

after(async () => {
  client?.close();
  await plane?.stop();
});

function operator(overrides: SettingsOverrides = {}, options: Partial<EventPosterOptions> = {}) {
  const capture = captureLogs();
  const settings = defaultSettings(overrides);
  const config = new LogConfig({ sinks: [capture.sink] });
  const poster = new EventPoster(
    { post: postEventVia(client), settings, logger: new Logger(config, 'kopf.posting'), ...options }
  );
  const logger = new Logger(config).withTaps(loggingTap(poster));
  return { capture, poster, logger, context: { settings, poster, logger } };
}

async function eventsAbout(uid: string | undefined, inNamespace = 'default'): Promise<Event[]> {
  const { items } = await listObjects(
    client,
    Events,
    { namespace: inNamespace, fieldSelector: `involvedObject.uid=${uid}` },
  );
  return items.sort(
    (a, b) => (a.eventTime ?? '').localeCompare(b.eventTime ?? '') || (a.reason ?? '').localeCompare(b.reason ?? '')
  );
}

test('info/warn/exception/event land as Kopf\'s Events about the object', async () => {
  const { poster, capture, context } = operator();
  runWithOperatorContext(context, () => {
    info(configMap, { reason: 'Hello', message: 'Info message.' });
    warn(configMap, { reason: 'Careful', message: 'Warning message.' });
    exception(configMap, { message: 'It failed:', error: new RangeError('out of range') });
    event(configMap, { type: 'SomeType', reason: 'Custom', message: 'x'.repeat(600) + 'y'.repeat(600) });
  });
  await poster.close(30);
  assert.deepEqual(poster.stats, { posted: 4, failed: 0, dropped: 0 });
  assert.deepEqual(capture.messages(), []);

  const events = await eventsAbout(configMap.metadata?.uid);
  const byReason = new Map(events.map((e) => [e.reason, e]));
  assert.deepEqual([...byReason.keys()].sort(), ['Careful', 'Custom', 'Hello', 'RangeError']);
  const hello = byReason.get('Hello')!;
  assert.equal(hello.type, 'Normal');
  assert.equal(hello.message, 'Info message.');
  assert.equal(hello.action, 'Action?');
  assert.equal(hello.reportingComponent, 'kopf');
  assert.equal(hello.reportingInstance, 'dev');
  assert.deepEqual(hello.source, { component: 'kopf' });
  assert.equal(hello.metadata?.generateName, 'kopf-event-');
  assert.match(hello.metadata?.name ?? '', /^kopf-event-[a-z0-9]{5}$/);
  assert.equal(hello.metadata?.namespace, 'default');
  assert.deepEqual(
    hello.involvedObject,
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: 'default', uid: configMap.metadata?.uid },
  );
  assert.match(hello.eventTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.match(hello.firstTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(hello.firstTimestamp, hello.lastTimestamp);
  assert.equal(byReason.get('Careful')?.type, 'Warning');
  assert.equal(byReason.get('RangeError')?.type, 'Error');
  assert.equal(byReason.get('RangeError')?.message, 'It failed: out of range');
  assert.equal(byReason.get('Custom')?.type, 'SomeType');
  assert.equal(byReason.get('Custom')?.message, `${'x'.repeat(511)}...${'y'.repeat(510)}`);
});

test('events about a cluster-scoped object go to the default namespace', async () => {
  const { poster, context } = operator();
  runWithOperatorContext(context, () => info(namespace, { reason: 'ClusterScoped', message: 'About a namespace.' }));
  await poster.close(30);
  const [posted, ...others] = await eventsAbout(namespace.metadata?.uid, 'default');
  assert.equal(others.length, 0);
  assert.equal(posted.reason, 'ClusterScoped');
  assert.deepEqual(
    posted.involvedObject,
    { apiVersion: 'v1', kind: 'Namespace', name: 'events-subject', namespace: 'default', uid: namespace.metadata?.uid },
  );
});

test('an event timed on a whole second is accepted: eventTime keeps its six fraction digits', async () => {
  const whole = Math.floor(Date.now() / 1000) * 1000;
  const { poster, capture, context } = operator({}, { clock: () => whole });
  runWithOperatorContext(context, () => info(configMap, { reason: 'WholeSecond' }));
  await poster.close(30);
  assert.deepEqual(capture.messages(), []);
  const posted = (await eventsAbout(configMap.metadata?.uid)).find((e) => e.reason === 'WholeSecond');
  assert.equal(posted?.eventTime, `${new Date(whole).toISOString().slice(0, 19)}.000000Z`);
});

test('with posting.loggers, object log records are posted with reason "Logging"; local ones are not', async () => {
  const subject = await createObject(client, ConfigMaps, { metadata: { name: 'logged', namespace: 'default' } });
  const { poster, logger } = operator({ posting: { loggers: true } });
  logger.forObject(subject).info("Handler 'greet' succeeded.");
  logger.forObject(subject).debug('Not at the default level.');
  logger.forObject(subject, { local: true }).warning('Local only.');
  logger.forObject(subject).error('Something broke.');
  await poster.close(30);
  const events = await eventsAbout(subject.metadata?.uid);
  assert.deepEqual(events.map((e) => [e.type, e.reason, e.message]).sort(), [
    ['Error', 'Logging', 'Something broke.'],
    ['Normal', 'Logging', "Handler 'greet' succeeded."],
  ]);
});

test('a rejected event is dropped with a warning, and the next ones are still posted', async () => {
  const { poster, capture, context } = operator({}, { concurrency: 1 });
  const ghost = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'ghost', namespace: 'no-such-namespace', uid: 'ghost-uid' },
  };
  runWithOperatorContext(context, () => {
    info(ghost, { reason: 'Lost', message: 'Nowhere to go.' });
    info(configMap, { reason: 'AfterFailure' });
  });
  await poster.close(30);
  assert.deepEqual(poster.stats, { posted: 1, failed: 1, dropped: 0 });
  assert.equal(capture.records.length, 1);
  assert.match(
    capture.messages()[0],
    /^Failed to post an event\. Ignoring and continuing\. .*404.*\. Event: type="Normal", reason="Lost", message="Nowhere to go\."\.$/, // lint-ignore: a regular expression cannot wrap
  );
  assert.ok((await eventsAbout(configMap.metadata?.uid)).some((e) => e.reason === 'AfterFailure'));
});
