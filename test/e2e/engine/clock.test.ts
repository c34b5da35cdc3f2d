/**
 * A virtual clock (`kopf/testing`'s `VirtualClock`) given to an embedded operator on a real control
 * plane: a CronJob-like reconciler (a Job child per minute of its schedule) runs minutes of its
 * schedule in the time its runs take, reading the time from `now()`; a Job marked complete by hand
 * (as no controller-manager runs here) is seen so. Timers, daemons' sleeps and Kopf's handler
 * delays move with the clock too. Every wait is for an object's state or a handler's call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteObject, listObjects, patchObject } from '../../../runtime/kube/index.ts';
import { adopt } from '../../../runtime/hierarchies/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { Jobs, type Job } from '../../../runtime/structs/builtins.ts';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import { VirtualClock } from '../../../runtime/testing/virtual-clock.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { examplesOf } from './kopfexamples.ts';
import { Journal } from './journal.ts';
import { withOperator } from './support.ts';

const cluster = useCluster();
const { ref, create, cleanup, watcher } = examplesOf(cluster);

const MINUTE = 60_000;
/** The clock's start: ten seconds into a minute. */
const START = Date.UTC(2030, 0, 1, 0, 0, 10);

/** Whether a Job has ended, as its controller would mark it. */
function finished(job: Job): boolean {
  const conditions = job.status?.conditions ?? [];
  return conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/**
 * A CronJob-like reconciler: every minute of the clock a Job child named by the minute; the
 * unfinished ones counted in the status. The time is read from `now()`, and read again at the end:
 * a minute that came while it ran is run for at once (`requeueAfter: 0`), not skipped.
 */
function cronLike(registry: OperatorRegistry): void {
  registry.on.reconcile(KopfExample, async function cron({ body, name, namespace, now, client, patch, status }) {
    const minute = Math.floor(now().getTime() / MINUTE);
    const jobName = `${name}-${minute}`;
    const { items } = await client.list(Jobs, { namespace: namespace!, labelSelector: `cron=${name}` });
    if (!items.some((job) => job.metadata?.name === jobName)) {
      const job: Job = {
        metadata: { name: jobName, namespace: namespace!, labels: { cron: name } },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
      };
      await client.create(Jobs, adopt(job, body));
    }
    const active = items.filter((job) => !finished(job)).length;
    if (status.active !== active) patch.status.active = active;
    return { requeueAfter: Math.max(0, ((minute + 1) * MINUTE - now().getTime()) / 1000) };
  }, { owns: [Jobs], when: ({ name }) => name.startsWith('cron') });
}

test('a CronJob-like reconciler runs five minutes of its schedule with a virtual clock', async (t) => {
  cleanup(t, 'cron1');
  t.after(async () => {
    const { items } = await listObjects(cluster.client, Jobs, { namespace: 'default', labelSelector: 'cron=cron1' });
    for (const job of items) await deleteObject(cluster.client, Jobs, ref(job.metadata!.name!)).catch(() => undefined);
  });
  const clock = new VirtualClock(START);
  const registry = new OperatorRegistry();
  cronLike(registry);
  const observer = watcher(t);
  const first = Math.floor(START / MINUTE);
  const jobsUntil = (last: number) => observer.waitForList(Jobs, { namespace: 'default', labelSelector: 'cron=cron1' },
    (jobs) => jobs.length === last - first + 1);
  await withOperator(cluster, registry, { clock }, async () => {
    await create('cron1');
    await jobsUntil(first);
    for (let minute = first + 1; minute <= first + 5; minute++) {
      await clock.advance(60);
      await jobsUntil(minute);
    }
    const { items } = await listObjects(cluster.client, Jobs, { namespace: 'default', labelSelector: 'cron=cron1' });
    const names = items.map((job) => job.metadata!.name).sort();
    assert.deepEqual(names, [0, 1, 2, 3, 4, 5].map((i) => `cron1-${first + i}`).sort());
    await observer.waitFor(KopfExample, ref('cron1'), (o) => o?.status?.active === 6);

    // No controller-manager runs here: a Job is marked complete by hand, as its controller would.
    const done = new Date(START).toISOString().replace(/\.\d+Z$/, 'Z');
    await patchObject(cluster.client, Jobs, ref(`cron1-${first}`), {
      status: {
        startTime: done, completionTime: done, succeeded: 1,
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: done },
          { type: 'Complete', status: 'True', lastTransitionTime: done },
        ],
      },
    }, { subresource: 'status' });
    await observer.waitFor(KopfExample, ref('cron1'), (o) => o?.status?.active === 5);
    assert.equal(clock.now(), START + 5 * MINUTE);
  });
});

test('timers, daemons\' sleeps and Kopf\'s handler delays wait on the virtual clock', async (t) => {
  cleanup(t, 'clocked');
  const clock = new VirtualClock(START);
  const journal = new Journal();
  const registry = new OperatorRegistry();
  const at = (now: () => Date) => (now().getTime() - START) / 1000;
  registry.on.timer(KopfExample, function ticking({ now }) { journal.add(`timer ${at(now)}`); }, {
    interval: 600, when: ({ name }) => name === 'clocked',
  });
  registry.on.daemon(KopfExample, async function sleeping({ now, stopped }) {
    while (!(await stopped.wait(300))) journal.add(`daemon ${at(now)}`);
  }, { when: ({ name }) => name === 'clocked' });
  registry.on.create(KopfExample, function delayed({ retry, now }) {
    journal.add(`create ${retry}`);
    if (retry < 1) throw new TemporaryError('later', { delay: 300 });
    journal.add(`created at ${at(now)}`);
  }, { when: ({ name }) => name === 'clocked' });
  await withOperator(cluster, registry, { clock }, async ({ capture }) => {
    await create('clocked');
    await journal.until('timer 0');
    await journal.until('create 0');
    // The retry's wake-up is set once the failure is stored: then the clock may move past it.
    await capture.waitFor(/^Sleeping for [\d.]+ seconds for the delayed handlers\.$/, { timeout: 30 });
    await clock.advance(1000);
    for (const entry of ['daemon 300', 'daemon 600', 'daemon 900', 'timer 600', 'create 1']) await journal.until(entry);
    const created = journal.entries.find((e) => e.startsWith('created at '));
    const seconds = Number(created?.slice('created at '.length));
    // Kopf's records keep microseconds, the clock milliseconds: the wake-up may come a millisecond
    // early, which the runtime takes as due (as it does for Node's own timers).
    assert.ok(seconds >= 299.99 && seconds <= 1000, `the retry ran at ${seconds} s of the clock, not before its delay`);
    assert.ok(!journal.entries.some((e) => /^(timer|daemon) /.test(e) && Number(e.split(' ')[1]) > 1000),
      `nothing runs after the clock's time: ${JSON.stringify(journal.entries)}`);
  });
});
