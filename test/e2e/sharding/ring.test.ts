/**
 * The ring end to end, with replicas embedded in the test's process on a real control plane: two
 * and three replicas split the objects and each handles only its own; a clean stop moves a
 * replica's objects to the others; a joining replica takes its share through the drain, with no
 * handler running twice and no daemon running in two replicas at once; an object that leaves a
 * replica's watch (the server's DELETED for a label-selected watch) is not a deletion there. The
 * ring holds against writes from outside it: a relabel is no move (the other replica never runs
 * the object, and the label is put back), a Lease with the ring's label but not its seal is no
 * member, and a drain label of any value drains and is acknowledged.
 * Everything awaited is an event (a journal entry, an object's state seen by a watch), never a time.
 */
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { createObject } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { Leases, Namespaces, microTime } from '../../../runtime/structs/builtins.ts';
import { RING_LABEL, memberName, shardLabel, drainLabel } from '../../../runtime/sharding/ring-labels.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { FINALIZER } from '../rules.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { startOperator } from '../engine/support.ts';
import { peeringManifests, peeringResources } from '../../../runtime/peering/peering-resources.ts';

const cluster = useCluster({ crds: [CRD_YAML, ...peeringManifests().slice(0, 2)] });

/** What the replicas' handlers did, in order, for all replicas at once; a test awaits entries, not time. */
class Journal {
  readonly entries: string[] = [];
  readonly #waiters = new Set<() => void>();
  add(entry: string): void {
    this.entries.push(entry);
    for (const waiter of [...this.#waiters]) waiter();
  }
  matching(pattern: RegExp): string[] { return this.entries.filter((e) => pattern.test(e)); }
  /** Resolves when `check` holds for the entries; rejects after `timeout` seconds. */
  until(what: string, check: (entries: readonly string[]) => boolean, timeout = 90): Promise<void> {
    return new Promise((resolve, reject) => {
      const test = () => { if (check(this.entries)) { done(); resolve(); } };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`not within ${timeout} s: ${what}; journal: ${JSON.stringify(this.entries)}`));
      }, timeout * 1000);
      const done = () => { clearTimeout(timer); this.#waiters.delete(test); };
      this.#waiters.add(test);
      test();
    });
  }
}

/** A replica's handlers: each journals as `WHO WHAT NAME`; a handler in flight is seen between start and end. */
function registryOf(who: string, journal: Journal, options: { daemons?: boolean } = {}): OperatorRegistry {
  const registry = new OperatorRegistry();
  registry.on.create(KopfExample, async function create_fn({ name }) {
    journal.add(`${who} create-start ${name}`);
    await new Promise((resolve) => setImmediate(resolve));
    journal.add(`${who} create-end ${name}`);
    return { by: who };
  });
  registry.on.update(KopfExample, function update_fn({ name }) {
    journal.add(`${who} update ${name}`);
  });
  registry.on.delete(KopfExample, function delete_fn({ name }) {
    journal.add(`${who} delete ${name}`);
  });
  registry.on.event(KopfExample, function event_fn({ type, name }) {
    if (type === 'DELETED') journal.add(`${who} event-deleted ${name}`);
  });
  if (options.daemons) {
    registry.on.daemon(KopfExample, async function daemon_fn({ name, stopped }) {
      journal.add(`${who} daemon-start ${name}`);
      await stopped.wait();
      // A daemon that takes its time to wind down: an object must not move before it has exited.
      await sleep(1000);
      journal.add(`${who} daemon-stop ${name} ${stopped.reason}`);
    });
  }
  return registry;
}

type Replica = ReturnType<typeof startOperator> & { who: string; member: string };

function replica(
  who: string, ring: string, namespace: string, journal: Journal, daemons = false, standalone = true,
): Replica {
  const settings = defaultSettings({
    posting: { enabled: false },
    sharding: { ring, namespace: 'default', leaseDuration: 3, renewDeadline: 2, retryPeriod: 0.5 },
  });
  const identity = `test-${ring}-${who}`;
  const running = startOperator(cluster, registryOf(who, journal, { daemons }), {
    namespaces: [namespace], settings, identity, standalone,
  });
  return { ...running, who, member: memberName(ring, identity) };
}

async function namespaced(name: string): Promise<string> {
  await createObject(cluster.client, Namespaces, { metadata: { name } });
  return name;
}

async function createObjects(namespace: string, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => createObject(cluster.client, KopfExample,
    { metadata: { name, namespace }, spec: { field: 'a' } })));
}

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

/** Waits until every object is handled by its creation handler; returns who handled each. */
async function handledBy(watcher: Cluster, namespace: string, all: readonly string[]): Promise<Map<string, string>> {
  const objects = await watcher.waitForList(KopfExample, { namespace }, (list) => list.length === all.length
    && list.every((o) => Boolean((o.status as { create_fn?: unknown } | undefined)?.create_fn)), { timeout: 90_000 });
  return new Map(objects.map((o) => [o.metadata!.name!, (o.status!.create_fn as { by: string }).by]));
}

/**
 * The member each object is assigned to, once every object is assigned to one of `members`, each
 * of them has some, and none drains.
 */
async function settled(
  watcher: Cluster, namespace: string, ring: string, members: readonly string[], count: number,
): Promise<Map<string, string>> {
  const shardOf = (o: KubeObject) => o.metadata?.labels?.[shardLabel(ring)] ?? '';
  const objects = await watcher.waitForList(KopfExample, { namespace }, (list) => list.length === count
    && list.every((o) => members.includes(shardOf(o)) && !(drainLabel(ring) in (o.metadata?.labels ?? {})))
    && members.every((member) => list.some((o) => shardOf(o) === member)), { timeout: 90_000 });
  return new Map(objects.map((o) => [o.metadata!.name!, o.metadata!.labels![shardLabel(ring)]!]));
}

/** Each creation handler ran once, by the replica the object is assigned to, and never two at once. */
function assertHandledOnceEach(journal: Journal, all: readonly string[]): void {
  for (const name of all) {
    const starts = journal.matching(new RegExp(`^\\S+ create-start ${name}$`));
    assert.equal(starts.length, 1, `${name}'s creation handler ran ${starts.length} times: ${starts.join('; ')}`);
  }
}

/** What a test of one ring works with: its namespace, journal and watcher, and its replicas' maker. */
interface RingTest {
  readonly ring: string;
  readonly namespace: string;
  readonly journal: Journal;
  readonly watcher: Cluster;
  replica(who: string, options?: { daemons?: boolean; standalone?: boolean }): Replica;
}

/** Runs `body` on a ring of its own in a namespace of its own; stops its replicas and watcher after it. */
async function onRing(ring: string, body: (test: RingTest) => Promise<void>): Promise<void> {
  const namespace = await namespaced(`ring-${ring}`);
  const journal = new Journal();
  const watcher = new Cluster(cluster.cp.kubeconfigPath);
  const started: Replica[] = [];
  const make = (who: string, { daemons = false, standalone = true } = {}) => {
    const made = replica(who, ring, namespace, journal, daemons, standalone);
    started.push(made);
    return made;
  };
  try {
    await body({ ring, namespace, journal, watcher, replica: make });
  } finally {
    watcher.close();
    await Promise.all(started.map((each) => each.op.stop()));
  }
}

for (const count of [2, 3]) {
  test(`${count} replicas split the objects; each handles only its own`, () => onRing(`split${count}`, async (t) => {
    const replicas = ['a', 'b', 'c'].slice(0, count).map((who) => t.replica(who));
    await Promise.all(replicas.map((r) => r.op.ready));
    // Every replica follows the ring's members; once each has seen them all, so has the assigner,
    // and no object is placed on a smaller ring first (and moved, legitimately, later).
    const full = new RegExp(`^The ring '${t.ring}' has ${count} member\\(s\\)`);
    await Promise.all(replicas.map((r) => r.capture.waitFor(full, { timeout: 60 })));
    const all = names('o', 30);
    await createObjects(t.namespace, all);
    const by = await handledBy(t.watcher, t.namespace, all);
    const placed = await settled(t.watcher, t.namespace, t.ring, replicas.map((r) => r.member), all.length);
    for (const r of replicas) {
      const own = all.filter((name) => placed.get(name) === r.member);
      assert.ok(own.length > 0, `${r.who} got no object: ${JSON.stringify([...placed])}`);
      for (const name of own) assert.equal(by.get(name), r.who, `${name} is ${r.who}'s, handled by ${by.get(name)}`);
    }
    assertHandledOnceEach(t.journal, all);
  }));
}

test('a clean stop moves the stopped replica\'s objects to the others, who handle them from then on', () => (
  onRing('stop', async ({ ring, namespace, journal, watcher, replica }) => {
    const [a, b] = [replica('a'), replica('b')];
    await Promise.all([a.op.ready, b.op.ready]);
    const all = names('s', 20);
    await createObjects(namespace, all);
    await handledBy(watcher, namespace, all);
    const before = await settled(watcher, namespace, ring, [a.member, b.member], all.length);
    const moving = all.filter((name) => before.get(name) === a.member);
    assert.ok(moving.length > 0, 'a got no object');
    const stopped = Date.now();
    await a.op.stop();
    await settled(watcher, namespace, ring, [b.member], all.length);
    console.log(`From the stop's end to all objects moved: ${((Date.now() - stopped) / 1000).toFixed(2)} s`);
    // b handles them now: a change is b's to handle.
    const change = { spec: { field: 'b' } };
    await Promise.all(moving.map((name) => watcher.mergePatch(KopfExample, { namespace, name }, change)));
    await journal.until('b handles the changes of the moved objects',
      (entries) => moving.every((name) => entries.includes(`b update ${name}`)));
    // Once each: the move itself (a label) is no change for the handlers.
    for (const name of moving) assert.equal(journal.matching(new RegExp(` update ${name}$`)).length, 1, name);
    assert.deepEqual(journal.matching(/^a (update|delete|event-deleted) /), []);
    assertHandledOnceEach(journal, all);
  })
));

test('a joining replica takes its share through the drain: no handler twice, no daemon in two replicas, '
  + 'no deletion where an object leaves', () => onRing('join', async (t) => {
  const { ring, namespace, journal, watcher, replica } = t;
  const a = replica('a', { daemons: true });
  await a.op.ready;
  const all = names('j', 20);
  await createObjects(namespace, all);
  await handledBy(watcher, namespace, all);
  await journal.until('a runs every daemon', (entries) => all.every((n) => entries.includes(`a daemon-start ${n}`)));
  const b = replica('b', { daemons: true });
  await b.op.ready;
  const after = await settled(watcher, namespace, ring, [a.member, b.member], all.length);
  const moved = all.filter((name) => after.get(name) === b.member);
  assert.ok(moved.length > 0, 'b took no object');
  await journal.until('b runs the daemons of the moved objects',
    (entries) => moved.every((n) => entries.includes(`b daemon-start ${n}`)));
  for (const name of moved) {
    // a's daemon had stopped (as for a pause) before b's started.
    const stop = journal.entries.indexOf(`a daemon-stop ${name} operator pausing`);
    const start = journal.entries.indexOf(`b daemon-start ${name}`);
    assert.ok(stop >= 0 && stop < start, `${name}: a's daemon stopped at ${stop}, b's started at ${start}`);
    const object = await watcher.read(KopfExample, { namespace, name });
    assert.ok(object.metadata?.finalizers?.includes(FINALIZER), `${name} lost its finalizer`);
  }
  // Leaving a's watch (a DELETED there) was no deletion: no deletion handler, no DELETED event handler.
  assert.deepEqual(journal.matching(/ (delete|event-deleted) /), []);
  // The move (a label) is no change for the handlers: a change after it is handled once, by b.
  const change = { spec: { field: 'b' } };
  await Promise.all(moved.map((name) => watcher.mergePatch(KopfExample, { namespace, name }, change)));
  await journal.until('b handles the changes', (entries) => moved.every((n) => entries.includes(`b update ${n}`)));
  for (const name of moved) assert.deepEqual(journal.matching(new RegExp(` update ${name}$`)), [`b update ${name}`]);
  assertHandledOnceEach(journal, all);
}));

test('a relabel by someone else is no move: the other replica never runs the object, the label is put back, '
  + 'and a real deletion is a deletion', () => onRing('relabel', async (t) => {
  const { ring, namespace, journal, watcher, replica } = t;
  const replicas = [replica('a', { daemons: true }), replica('b', { daemons: true })];
  await Promise.all(replicas.map((each) => each.op.ready));
  const all = names('r', 10);
  await createObjects(namespace, all);
  await handledBy(watcher, namespace, all);
  const placed = await settled(watcher, namespace, ring, replicas.map((each) => each.member), all.length);
  // `a` is a replica holding two objects that the other never ran (one that joined the ring later
  // may have taken its share from the other, which ran them first): whichever the hashing picked.
  const [first, second] = [replicas[0]!, replicas[1]!];
  const ran = (who: string, name: string) => journal.matching(new RegExp(`^${who} \\S+ ${name}$`)).length > 0;
  const held = (each: Replica, other: Replica) =>
    all.filter((name) => placed.get(name) === each.member && !ran(other.who, name));
  const [a, b] = held(first, second).length >= 2 ? [first, second] : [second, first];
  const [moved, deleted] = held(a, b);
  assert.ok(moved && deleted, `no replica holds two objects of its own: ${JSON.stringify([...placed])}`);
  await journal.until('a runs the daemons', (entries) => entries.includes(`${a.who} daemon-start ${moved}`)
    && entries.includes(`${a.who} daemon-start ${deleted}`));
  // Someone with the right to patch the object relabels it for b, while a runs its daemon.
  const labels = { [shardLabel(ring)]: b.member };
  await watcher.mergePatch(KopfExample, { namespace, name: moved }, { metadata: { labels } });
  await b.capture.waitFor(/without the ring's seal of it/, { timeout: 60 });
  await watcher.waitFor(KopfExample, { namespace, name: moved },
    (o) => o?.metadata?.labels?.[shardLabel(ring)] === a.member, { timeout: 60_000 });
  // Still a's: a change is a's to handle, and b never ran anything of it.
  await watcher.mergePatch(KopfExample, { namespace, name: moved }, { spec: { field: 'b' } });
  await journal.until('a handles the change', (entries) => entries.includes(`${a.who} update ${moved}`));
  assert.deepEqual(journal.matching(new RegExp(`^${b.who} \\S+ ${moved}$`)), []);
  await watcher.delete(KopfExample, { namespace, name: deleted });
  await watcher.waitForGone(KopfExample, { namespace, name: deleted }, { timeout: 60_000 });
  await journal.until('a is told of the deletion',
    (entries) => entries.includes(`${a.who} event-deleted ${deleted}`));
  assert.deepEqual(journal.matching(new RegExp(` (delete|event-deleted) ${moved}$`)), []);
  assert.ok(journal.entries.includes(`${a.who} delete ${deleted}`), 'a did not run the deletion handler');
  const object = await watcher.read(KopfExample, { namespace, name: moved });
  assert.ok(object.metadata?.finalizers?.includes(FINALIZER), `${moved} lost its finalizer`);
  assertHandledOnceEach(journal, all);
}));

test('a Lease with the ring\'s label but not the ring\'s seal is no member, whatever it says', () => (
  onRing('fake', async ({ ring, namespace, journal, watcher, replica }) => {
    const spec = { holderIdentity: 'anyone', leaseDurationSeconds: 2_000_000_000, renewTime: microTime(Date.now()) };
    await createObject(cluster.client, Leases, {
      metadata: { name: `${ring}-fake`, namespace: 'default', labels: { [RING_LABEL]: ring } }, spec,
    });
    const a = replica('a');
    await a.op.ready;
    await a.capture.waitFor(/^The lease 'default\/fake-fake' has the ring's label but not the ring's seal/,
      { timeout: 60 });
    const all = names('f', 12);
    await createObjects(namespace, all);
    const by = await handledBy(watcher, namespace, all);
    assert.deepEqual(new Set(by.values()), new Set(['a']));
    await settled(watcher, namespace, ring, [a.member], all.length);
    assertHandledOnceEach(journal, all);
  })
));

test('a drain label of any value drains: the object is let go, acknowledged, placed and handled again; its '
  + 'deletion completes', () => onRing('drainx', async ({ ring, namespace, journal, watcher, replica }) => {
  const a = replica('a', { daemons: true });
  await a.op.ready;
  const [name] = names('x', 1) as [string];
  await createObjects(namespace, [name]);
  await handledBy(watcher, namespace, [name]);
  await journal.until('a runs the daemon', (entries) => entries.includes(`a daemon-start ${name}`));
  const labels = { [drainLabel(ring)]: 'x' };
  await watcher.mergePatch(KopfExample, { namespace, name }, { metadata: { labels } });
  await journal.until('a lets it go and takes it back once placed anew', (entries) => {
    const stop = entries.indexOf(`a daemon-stop ${name} operator pausing`);
    return stop >= 0 && entries.indexOf(`a daemon-start ${name}`, stop) > stop;
  });
  await settled(watcher, namespace, ring, [a.member], 1);
  await watcher.delete(KopfExample, { namespace, name });
  await watcher.waitForGone(KopfExample, { namespace, name }, { timeout: 60_000 });
  assert.ok(journal.entries.includes(`a delete ${name}`), 'a did not run the deletion handler');
  assertHandledOnceEach(journal, [name]);
}));

test('with peering, a ring\'s replicas do not pause each other; a peer of a higher priority pauses them', () => (
  onRing('peers', async ({ namespace, watcher, replica }) => {
    const [peering] = peeringResources(false);
    const object = { apiVersion: 'kopf.dev/v1', kind: 'KopfPeering', metadata: { name: 'default', namespace } };
    await createObject(cluster.client, peering!, object);
    const [a, b] = ['a', 'b'].map((who) => replica(who, { standalone: false })) as [Replica, Replica];
    await Promise.all([a.op.ready, b.op.ready]);
    const all = names('p', 10);
    await createObjects(namespace, all);
    const by = await handledBy(watcher, namespace, all);
    assert.deepEqual(new Set(by.values()), new Set(['a', 'b']), 'both replicas work');
    const lastseen = new Date().toISOString();
    const freezer = { status: { freezer: { priority: 100, lifetime: 60, lastseen } } };
    await watcher.mergePatch(peering!, { namespace, name: 'default' }, freezer);
    await Promise.all([a, b].map((r) => r.capture.waitFor(/^Pausing operations in favour of/, { timeout: 60 })));
    await watcher.mergePatch(peering!, { namespace, name: 'default' }, { status: { freezer: null } });
    await Promise.all([a, b].map((r) => r.capture.waitFor(/^Resuming operations after the pause/, { timeout: 60 })));
    const conflicts = [a, b].flatMap((r) => r.capture.messages().filter((m) => /^Possibly conflicting/.test(m)));
    assert.deepEqual(conflicts, []);
  })
));

test('objects labelled for a Lease that is no living member are assigned directly, without a drain', () => (
  onRing('dead', async ({ ring, namespace, journal, watcher, replica }) => {
    // A Lease labelled for the ring, never renewed (and never sealed by the ring): no member.
    const ghost = memberName(ring, 'ghost');
    const spec = { holderIdentity: 'ghost', leaseDurationSeconds: 3, renewTime: microTime(Date.now()) };
    await createObject(cluster.client, Leases, {
      metadata: { name: ghost, namespace: 'default', labels: { [RING_LABEL]: ring } }, spec,
    });
    const all = names('d', 6);
    await Promise.all(all.map((name) => createObject(cluster.client, KopfExample,
      { metadata: { name, namespace, labels: { [shardLabel(ring)]: ghost } }, spec: { field: 'a' } })));
    const a = replica('a');
    await a.op.ready;
    const by = await handledBy(watcher, namespace, all);
    assert.deepEqual(new Set(by.values()), new Set(['a']));
    await settled(watcher, namespace, ring, [a.member], all.length);
    assertHandledOnceEach(journal, all);
  })
));
