/**
 * The ring's children end to end on a real control plane: a reconciler owns ConfigMaps, made with
 * `adopt()` (and one made by hand, without the ring's label). With replicas embedded in the test's
 * process: each child carries its owner's member label, written only for the child made by hand (as
 * the API server counts the writes); each replica's owned watch holds only its owners' children (the
 * reconciler's own view of them, `cache.list`); a child relabelled by someone else makes no other
 * replica run its owner, and is put back; when a replica stops, its owners move with their children,
 * relabelled (one write each) for the replica that takes them, whose `owned()` reads them. With
 * replicas as processes (`kopf run --sharding`): a replica SIGKILLed, its owners' children follow
 * them to the survivor, which reads them. Everything awaited is a run of a reconciler (its journal
 * or its log) or an object's state, never a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AlreadyExistsError, createObject } from '../../../runtime/kube/index.ts';
import { adopt } from '../../../runtime/hierarchies/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { ConfigMaps, Namespaces } from '../../../runtime/structs/builtins.ts';
import { memberName, shardLabel } from '../../../runtime/sharding/ring-labels.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { CRD_YAML } from '../rules.ts';
import { useCluster } from '../use-cluster.ts';
import { startOperator } from '../engine/support.ts';
import { delta, requestCounts, type RequestCounts } from '../metrics.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';

const cluster = useCluster({ crds: [CRD_YAML] });
const RING = 'kids';
const NAMESPACE = 'ring-children';

/** What each replica's reconciler read at its latest run: the children of each owner, and all it watches. */
class Views {
  /** By replica, by owner: the names `owned()` gave, sorted and joined. */
  readonly owned = new Map<string, Map<string, string>>();
  /** By replica: how many children its owned watch holds (`cache.list`), at its latest run. */
  readonly watched = new Map<string, number>();
  readonly #waiters = new Set<() => void>();

  run(who: string, owner: string, owned: readonly string[], watched: number): void {
    if (!this.owned.has(who)) this.owned.set(who, new Map());
    this.owned.get(who)!.set(owner, [...owned].sort().join(','));
    this.watched.set(who, watched);
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Resolves when `check` holds; rejects after `timeout` seconds, saying what was seen. */
  until(what: string, check: () => boolean, timeout = 90): Promise<void> {
    return new Promise((resolve, reject) => {
      const test = () => { if (check()) { done(); resolve(); } };
      const timer = setTimeout(() => {
        done();
        const owned = [...this.owned].map(([who, owners]) => [who, [...owners]]);
        const seen = JSON.stringify({ owned, watched: [...this.watched] });
        reject(new Error(`not within ${timeout} s: ${what}; seen: ${seen}`));
      }, timeout * 1000);
      const done = () => { clearTimeout(timer); this.#waiters.delete(test); };
      this.#waiters.add(test);
      test();
    });
  }
}

/** A replica whose reconciler keeps two children per object, `NAME-0` and `NAME-1`, and reports its reads. */
function replica(who: string, views: Views) {
  const registry = new OperatorRegistry();
  registry.on.reconcile(KopfExample, async function keep({ body, name, client, owned, cache }) {
    const children = owned(ConfigMaps);
    for (const index of [0, 1]) {
      if (children.some((child) => child.metadata?.name === `${name}-${index}`)) continue;
      const child = { metadata: { name: `${name}-${index}`, namespace: NAMESPACE }, data: {} };
      await client.create(ConfigMaps, adopt(child, body)).catch((error: unknown) => {
        if (!(error instanceof AlreadyExistsError)) throw error;
      });
    }
    views.run(who, name, children.map((child) => child.metadata?.name ?? ''), cache.list(ConfigMaps).length);
  }, { owns: [ConfigMaps] });
  const settings = defaultSettings({
    posting: { enabled: false },
    sharding: { ring: RING, namespace: 'default', leaseDuration: 3, renewDeadline: 2, retryPeriod: 0.5 },
  });
  const identity = `test-${RING}-${who}`;
  const running = startOperator(cluster, registry, { namespaces: [NAMESPACE], settings, identity, standalone: true });
  return { ...running, who, member: memberName(RING, identity) };
}

/** The label writes to children since `before`, as the API server counts them: the patches it took (not the 409s). */
async function patchedSince(before: RequestCounts): Promise<number> {
  const { total, conflicts } = delta(before, await requestCounts(cluster.cp.credentials, 'configmaps'), ['PATCH']);
  return total - conflicts;
}

const shardOf = (object: KubeObject) => object.metadata?.labels?.[shardLabel(RING)];

/** Waits until every owner is placed on one of `members` and every child carries its owner's label. */
async function followed(
  watcher: Cluster, owners: number, children: number, members: readonly string[], namespace = NAMESPACE,
) {
  const placed = await watcher.waitForList(KopfExample, { namespace }, (list) => list.length === owners
    && list.every((owner) => members.includes(shardOf(owner) ?? '')), { timeout: 90_000 });
  const memberOf = new Map(placed.map((owner) => [owner.metadata!.uid!, shardOf(owner)!]));
  const ownerOf = (child: KubeObject) => child.metadata?.ownerReferences?.find((ref) => ref.controller)?.uid ?? '';
  const kids = await watcher.waitForList(ConfigMaps, { namespace }, (list) => {
    const ours = list.filter((child) => memberOf.has(ownerOf(child)));
    return ours.length === children && ours.every((child) => shardOf(child) === memberOf.get(ownerOf(child)));
  }, { timeout: 90_000 });
  return { owners: placed, children: kids.filter((child) => memberOf.has(ownerOf(child))) };
}

test('children follow their owner: labelled with its member, watched by its replica only, moved with it',
  async (t) => {
    await createObject(cluster.client, Namespaces, { metadata: { name: NAMESPACE } });
    const views = new Views();
    const [a, b] = [replica('a', views), replica('b', views)];
    const watcher = new Cluster(cluster.cp.kubeconfigPath);
    t.after(async () => {
      watcher.close();
      await Promise.all([a.op.stop(), b.op.stop()]);
    });
    await Promise.all([a.op.ready, b.op.ready]);
    const full = new RegExp(`^The ring '${RING}' has 2 member\\(s\\)`);
    await Promise.all([a, b].map((r) => r.capture.waitFor(full, { timeout: 60 })));

    const names = Array.from({ length: 10 }, (_, i) => `p-${i}`);
    const start = await requestCounts(cluster.cp.credentials, 'configmaps');
    await Promise.all(names.map((name) => createObject(cluster.client, KopfExample,
      { metadata: { name, namespace: NAMESPACE }, spec: {} })));
    // A child made by hand, without the helpers (no ring label): it is labelled for its owner's member.
    const [first] = await watcher.waitForList(KopfExample, { namespace: NAMESPACE, fieldSelector: 'metadata.name=p-0' },
      (list) => list.length === 1);
    const reference = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', name: 'p-0', uid: first!.metadata!.uid!,
      controller: true };
    await createObject(cluster.client, ConfigMaps,
      { metadata: { name: 'p-0-hand', namespace: NAMESPACE, ownerReferences: [reference] }, data: {} });
    const total = names.length * 2 + 1;
    const childrenOf = (name: string) => name === 'p-0' ? 'p-0-0,p-0-1,p-0-hand' : `${name}-0,${name}-1`;

    // Each child carries its owner's member; each replica reads its owners' children, and watches no others.
    const before = await followed(watcher, names.length, total, [a.member, b.member]);
    // adopt() gave the children their owner's label: only the one made by hand is written.
    assert.equal(await patchedSince(start), 1);
    const holder = new Map(before.owners.map((owner) => [owner.metadata!.name!, shardOf(owner)!]));
    const share = (member: string) => before.children.filter((child) => shardOf(child) === member).length;
    for (const r of [a, b]) {
      const own = names.filter((name) => holder.get(name) === r.member);
      assert.ok(own.length > 0 && own.length < names.length, `${r.who} holds ${own.length} of ${names.length}`);
      await views.until(`${r.who} reads its owners' children, and watches its ${share(r.member)} only`, () => {
        return own.every((name) => views.owned.get(r.who)?.get(name) === childrenOf(name))
          && views.watched.get(r.who) === share(r.member);
      });
    }

    // A child relabelled by someone else for b: b never runs its owner, and the label is put back.
    const moving = names.filter((name) => holder.get(name) === a.member);
    const [target] = moving;
    const child = { namespace: NAMESPACE, name: `${target}-0` };
    await watcher.mergePatch(ConfigMaps, child, { metadata: { labels: { [shardLabel(RING)]: b.member } } });
    await watcher.waitFor(ConfigMaps, child, (found) => found !== null && shardOf(found) === a.member);
    await views.until(`a reads ${target}'s children again`,
      () => views.owned.get('a')?.get(target!) === childrenOf(target!));
    assert.equal(views.owned.get('b')?.has(target!), false, `b ran ${target}, a's`);

    // a stops: its owners move to b with their children, which b's owned() reads.
    const relabelled = before.children.filter((child) => shardOf(child) === a.member).length;
    const stopping = await requestCounts(cluster.cp.credentials, 'configmaps');
    await a.op.stop();
    const after = await followed(watcher, names.length, total, [b.member]);
    assert.equal(after.children.length, total);
    assert.equal(await patchedSince(stopping), relabelled, 'one write per child that moved');
    await views.until('b reads the children of the owners it took over, and watches them all', () => {
      return moving.every((name) => views.owned.get('b')?.get(name) === childrenOf(name))
        && views.watched.get('b') === total;
    });
  });

test('a replica SIGKILLed: its owners\' children follow them to the replica that takes them over', async (t) => {
  // The same ring as above, whose replicas have left it: the Leases' namespace is the same.
  const ring = RING, namespace = 'ring-children-kill';
  await createObject(cluster.client, Namespaces, { metadata: { name: namespace } });
  const start = (who: string) => runOperator({
    files: [join(import.meta.dirname, 'fixtures', 'children.ts')],
    args: ['--sharding', ring, '-n', namespace, '--verbose'], kubeconfigPath: cluster.cp.kubeconfigPath,
    env: { POD_ID: `test-${ring}-${who}` }, // each its own identity, so its own member
  });
  const [a, b] = [start('a'), start('b')];
  const watcher = new Cluster(cluster.cp.kubeconfigPath);
  t.after(async () => {
    watcher.close();
    await Promise.all([a.stop(), b.stop()]);
  });
  const joined = new RegExp(`Joined the ring '${ring}' as (${ring}-[0-9a-f]+)\\.`);
  const [memberA, memberB] = await Promise.all([a, b].map(async (r) => joined.exec(await r.waitFor(joined))![1]!));
  const full = new RegExp(`The ring '${ring}' has 2 member\\(s\\)`);
  await Promise.all([a, b].map((r) => r.waitFor(full, { timeout: 60_000 })));

  const names = Array.from({ length: 8 }, (_, i) => `k-${i}`);
  await Promise.all(names.map((name) => createObject(cluster.client, KopfExample,
    { metadata: { name, namespace }, spec: {} })));
  const before = await followed(watcher, names.length, names.length * 2, [memberA, memberB], namespace);
  const moving = before.owners.filter((owner) => shardOf(owner) === memberA).map((owner) => owner.metadata!.name!);
  assert.ok(moving.length > 0 && moving.length < names.length, `a holds ${moving.length} of ${names.length}`);

  await a.stop({ signal: 'SIGKILL' });
  const since = b.output.split('\n').length;
  await followed(watcher, names.length, names.length * 2, [memberB], namespace);
  for (const name of moving) {
    await b.waitFor(`Owned ${name}: ${name}-0,${name}-1 of `, { since, timeout: 60_000 });
  }
});
