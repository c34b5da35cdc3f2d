/**
 * Wire compatibility: the Events Python Kopf 1.44 posts and the ones we post for the same calls,
 * read back from the same API server, differ only in what identifies each event and object.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { createObject, listObjects, watchStream } from '../../../runtime/kube/index.ts';
import { LogConfig } from '../../../runtime/logging/config.ts';
import { Logger } from '../../../runtime/logging/logger.ts';
import { runWithOperatorContext } from '../../../runtime/posting/operator-context.ts';
import { event, exception, info, warn } from '../../../runtime/posting/helpers.ts';
import { postEventVia } from '../../../runtime/posting/kube.ts';
import { EventPoster } from '../../../runtime/posting/poster.ts';
import { ConfigMaps, Events, type ConfigMap, type Event } from '../../../runtime/structs/builtins.ts';
import { runOperator, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { useCluster } from '../use-cluster.ts';
import { kopfRunCommand } from '../pykopf.ts';

let kopf: RunningOperator | undefined;
// Registered before the cluster's own hooks: Kopf stops before its control plane does.
after(async () => { await kopf?.stop(); });
const cluster = useCluster({ crds: [] });

async function eventsAbout(subject: ConfigMap): Promise<Event[]> {
  const { items } = await listObjects(
    cluster.client,
    Events,
    { namespace: 'default', fieldSelector: `involvedObject.uid=${subject.metadata?.uid}` },
  );
  return items;
}

/** What is left of an event once its own identity and the subject's are taken out. */
function comparable(e: Event): Record<string, unknown> {
  const { metadata, involvedObject, firstTimestamp, lastTimestamp, eventTime, ...rest } = e;
  const { name, uid, resourceVersion, creationTimestamp, managedFields, ...meta } = metadata ?? {};
  const { name: subjectName, uid: subjectUid, ...subject } = involvedObject ?? {};
  return {
    ...rest,
    metadata: meta,
    involvedObject: subject,
    named: [
      typeof name,
      typeof uid,
      typeof resourceVersion,
      typeof creationTimestamp,
      managedFields?.length,
      typeof subjectName,
      typeof subjectUid,
    ],
    times: [firstTimestamp, lastTimestamp, eventTime].map((t) => t?.replace(/\d/g, '0')),
  };
}

/** Resolves once `count` events about the subject exist, by watching them (Kopf posts in the background). */
async function awaitEvents(subject: ConfigMap, count: number, timeoutMs: number): Promise<void> {
  const seen = new Set<string>();
  const signal = AbortSignal.timeout(timeoutMs);
  const stream = watchStream(
    cluster.client,
    Events,
    { namespace: 'default', fieldSelector: `involvedObject.uid=${subject.metadata?.uid}`, signal },
  );
  for await (const change of stream) {
    if ((change.type === 'LISTED' || change.type === 'ADDED') && change.object.metadata?.name)
      seen.add(change.object.metadata.name);
    if (seen.size >= count) return;
  }
  throw new Error(`Only ${seen.size} of ${count} events about ${subject.metadata?.name} within ${timeoutMs} ms.`);
}

const byReason = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.reason).localeCompare(
  String(b.reason)
);

test('our events are field for field those of Python Kopf', { timeout: 300_000 }, async () => {
  const theirs = await createObject(
    cluster.client,
    ConfigMaps,
    { metadata: { name: 'kopf-subject', namespace: 'default', labels: { 'events-twin': 'kopf' } } },
  );
  const ours = await createObject(
    cluster.client,
    ConfigMaps,
    { metadata: { name: 'our-subject', namespace: 'default' } },
  );

  kopf = runOperator({
    command: await kopfRunCommand(),
    args: ['--standalone', '-n', 'default'],
    files: [join(import.meta.dirname, 'kopf_events.py')],
    kubeconfigPath: cluster.cp.kubeconfigPath,
  });
  await kopf.waitFor("Handler 'twin' succeeded.", { timeout: 120_000 });
  // Kopf posts in the background, and a loaded machine slows it: say what it said if it falls short.
  const running = kopf;
  await awaitEvents(theirs, 4, 90_000).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\nKopf's output:\n${running.lines.slice(-30).join('\n')}`);
  });
  await kopf.stop();

  class OutOfRange extends Error {}
  const settings = defaultSettings();
  const poster = new EventPoster(
    { post: postEventVia(cluster.client), settings, logger: new Logger(new LogConfig({ sinks: [] })) }
  );
  runWithOperatorContext({ settings, poster }, () => {
    info(ours, { reason: 'Hello', message: 'Info message.' });
    warn(ours, { reason: 'Careful', message: 'Warning message.' });
    exception(ours, { message: 'It failed:', error: new OutOfRange('out of range') });
    event(ours, { type: 'SomeType', reason: 'Custom', message: 'x'.repeat(600) + 'y'.repeat(600) });
  });
  await poster.close(30);

  const kopfEvents = (await eventsAbout(theirs)).map(comparable).sort(byReason);
  const ourEvents = (await eventsAbout(ours)).map(comparable).sort(byReason);
  assert.equal(kopfEvents.length, 4, JSON.stringify(kopfEvents, null, 2));
  assert.deepEqual(ourEvents, kopfEvents);
});
