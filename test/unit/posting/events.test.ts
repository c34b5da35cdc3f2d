import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { buildEventBody, cutMessage, isAboutEvent } from '../../../runtime/posting/events.ts';

const T = Date.UTC(2026, 10, 22, 15, 39, 55, 651);
const ref = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'kex1', uid: 'u-1', namespace: 'ns1' };

test('the body is Kopf\'s, field for field', () => {
  const body = buildEventBody(
    { ref, type: 'Normal', reason: 'Hello', message: 'Hi there.', time: T },
    defaultSettings().posting,
    'default',
  );
  assert.deepEqual(body, {
    metadata: { namespace: 'ns1', generateName: 'kopf-event-' },
    action: 'Action?',
    type: 'Normal',
    reason: 'Hello',
    message: 'Hi there.',
    reportingComponent: 'kopf',
    reportingInstance: 'dev',
    source: { component: 'kopf' },
    involvedObject: { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'kex1', uid: 'u-1', namespace: 'ns1' },
    firstTimestamp: '2026-11-22T15:39:55.651000+00:00',
    lastTimestamp: '2026-11-22T15:39:55.651000+00:00',
    eventTime: '2026-11-22T15:39:55.651000+00:00',
  });
});

test('cluster-scoped objects get their events in the default namespace, named in involvedObject too', () => {
  const clusterRef = { apiVersion: 'v1', kind: 'Namespace', name: 'nsx', uid: 'u-2' };
  const body = buildEventBody(
    { ref: clusterRef, type: 'Warning', reason: 'R', message: '', time: T },
    defaultSettings().posting,
    'team-a',
  );
  assert.equal(body.metadata.namespace, 'team-a');
  assert.deepEqual(body.involvedObject, { ...clusterRef, namespace: 'team-a' });
});

test('the posting settings name the component, the instance and the name prefix', () => {
  const posting = defaultSettings(
    { posting: { reportingComponent: 'my-op', reportingInstance: 'pod-7', eventNamePrefix: 'my-op-' } }
  ).posting;
  const body = buildEventBody({ ref, type: 'Normal', reason: 'R', message: 'm', time: T }, posting, 'default');
  assert.equal(body.metadata.generateName, 'my-op-');
  assert.equal(body.reportingComponent, 'my-op');
  assert.equal(body.source.component, 'my-op');
  assert.equal(body.reportingInstance, 'pod-7');
});

test('a zero fraction of a second is still written: Kubernetes needs it in eventTime', () => {
  const body = buildEventBody(
    { ref, type: 'Normal', reason: 'R', message: 'm', time: Date.UTC(2026, 0, 2, 3, 4, 5, 0) },
    defaultSettings().posting,
    'default',
  );
  assert.equal(body.eventTime, '2026-01-02T03:04:05.000000+00:00');
});

test('messages over 1024 characters keep their first 511 and last 510, joined by "..."', () => {
  assert.equal(cutMessage('x'.repeat(1024)), 'x'.repeat(1024));
  const cut = cutMessage('a'.repeat(600) + 'b'.repeat(600));
  assert.equal(cut, `${'a'.repeat(511)}...${'b'.repeat(510)}`);
  assert.equal(cut.length, 1024);
  const body = buildEventBody(
    { ref, type: 'Normal', reason: 'R', message: 'c'.repeat(5000), time: T },
    defaultSettings().posting,
    'default',
  );
  assert.equal(body.message.length, 1024);
});

test('lengths count characters, not UTF-16 units, as in Python', () => {
  const emoji = '\u{1F600}';
  assert.equal(cutMessage(emoji.repeat(1024)), emoji.repeat(1024));
  assert.equal(cutMessage(emoji.repeat(1025)), `${emoji.repeat(511)}...${emoji.repeat(510)}`);
});

test('core v1 Events are recognised, so that no events are posted about events', () => {
  assert.equal(isAboutEvent({ apiVersion: 'v1', kind: 'Event', name: 'e' }), true);
  assert.equal(isAboutEvent({ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e' }), false);
  assert.equal(isAboutEvent(ref), false);
});
