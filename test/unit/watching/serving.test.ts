/**
 * Which watch streams run: a stream per served resource and served namespace, whichever of the
 * two arrives first; cluster-scoped resources and cluster-wide operators watch once; a stream that
 * fails fails the operator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Serving } from '../../../runtime/watching/serving.ts';
import { WatcherSet } from '../../../runtime/watching/watchers.ts';
import type { ResourceDescriptor } from '../../../runtime/structs/resources.ts';

const Things: ResourceDescriptor = {
  group: 'example.com',
  version: 'v1',
  plural: 'things',
  kind: 'Thing',
  scope: 'Namespaced',
};
const Globals: ResourceDescriptor = {
  group: 'example.com',
  version: 'v1',
  plural: 'globals',
  kind: 'Global',
  scope: 'Cluster',
};

/** A set of streams that records which ones run (a stream runs until its signal is aborted). */
function recorded(stop: AbortSignal, running: Set<string>, name: string): WatcherSet {
  return new WatcherSet(async (namespace, signal) => {
    const key = `${name}@${namespace ?? '*'}`;
    running.add(key);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    running.delete(key);
  }, stop);
}

test('streams start for each resource and namespace, whichever comes first, and stop with the namespace', async () => {
  const stop = new AbortController();
  const running = new Set<string>();
  const serving = new Serving(false);
  serving.addNamespace('a');
  serving.add(Things, recorded(stop.signal, running, 'things'));
  serving.add(Globals, recorded(stop.signal, running, 'globals'));
  serving.addNamespace('b');
  serving.addNamespace('b');
  assert.deepEqual([...running].sort(), ['globals@*', 'things@a', 'things@b']);
  await serving.removeNamespace('a');
  assert.deepEqual([...running].sort(), ['globals@*', 'things@b']);
  stop.abort();
  await serving.settled();
  assert.deepEqual([...running], []);
});

test('cluster-wide, every resource is watched once; a failing stream fails the whole', async () => {
  const stop = new AbortController();
  const running = new Set<string>();
  const serving = new Serving(true);
  serving.add(Things, recorded(stop.signal, running, 'things'));
  serving.addNamespace('ignored');
  assert.deepEqual([...running], ['things@*']);
  serving.add(Globals, new WatcherSet(async () => { throw new Error('the watch broke'); }, stop.signal));
  await assert.rejects(serving.failed, /the watch broke/);
  stop.abort();
  await serving.settled();
});
