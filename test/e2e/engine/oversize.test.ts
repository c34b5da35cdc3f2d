/**
 * An object whose diff-base does not fit into the API server's 256 KiB of annotations, on a real
 * control plane: its create handler runs once (not again and again as the records' write is
 * refused), the error and a Kubernetes Event name the annotation, and other objects are handled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObject, getObject, listObjects } from '../../../runtime/kube/index.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { ERROR } from '../../../runtime/logging/index.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { Events } from '../../../runtime/structs/builtins.ts';
import { useCluster } from '../use-cluster.ts';
import { about, withOperator } from './support.ts';

const cluster = useCluster();

const TOO_LARGE =
  /^The diff-base does not fit into the object's annotations: kopf\.zalando\.org\/last-handled-configuration would be 300\.\d KiB, all annotations 300\.\d KiB, over the API server's limit of 256\.0 KiB\. /; // lint-ignore: a regular expression cannot wrap

test('a diff-base over the annotations\' limit: the handler runs once, the error and an event name the ' +
  'annotation', async () => {
  const calls: string[] = [];
  const registry = new OperatorRegistry();
  registry.on.create(
    KopfExample,
    async function create_fn({ name }) { calls.push(name ?? ''); return { seen: true }; },
  );
  const settings = defaultSettings();
  let uid: string | undefined;
  await withOperator(cluster, registry, { settings }, async ({ capture }) => {
    const big = await createObject(cluster.client, KopfExample, {
      metadata: { name: 'big', namespace: 'default' }, spec: { field: 'x'.repeat(300 * 1024) },
    });
    uid = big.metadata?.uid;
    const error = await capture.waitFor((r) => r.ref?.name === 'big' && r.level >= ERROR, { timeout: 30 });
    assert.match(error.message, TOO_LARGE);
    // The records of the success are written instead; their echo is not handled again.
    await capture.waitFor(about('big', /^Not handled again: /), { timeout: 30 });

    await createObject(
      cluster.client,
      KopfExample,
      { metadata: { name: 'small', namespace: 'default' }, spec: { field: 'y' } },
    );
    await capture.waitFor(about('small', 'Handling cycle is finished, waiting for new changes.'), { timeout: 30 });

    const stored = await getObject(cluster.client, KopfExample, { namespace: 'default', name: 'big' });
    assert.deepEqual(stored.status?.create_fn, { seen: true });
    assert.match(stored.metadata?.annotations?.['kopf.zalando.org/create_fn'] ?? '', /"success":true/);
    assert.equal(stored.metadata?.annotations?.['kopf.zalando.org/last-handled-configuration'], undefined);
    assert.equal(capture.records.filter((r) => r.level >= ERROR).length, 1, 'said once');
    assert.ok(!capture.messages().some((message) => message.startsWith('Throttling')));
  });
  // After the operator stopped, with the events it still had to post.
  assert.deepEqual(calls.sort(), ['big', 'small'], 'each handler ran once');
  const { items } = await listObjects(
    cluster.client,
    Events,
    { namespace: 'default', fieldSelector: `involvedObject.uid=${uid}` },
  );
  assert.equal(items.length, 1, JSON.stringify(items.map((event) => event.message)));
  assert.equal(items[0]?.type, 'Error');
  assert.equal(items[0]?.reason, 'TooLarge');
  assert.match(items[0]?.message ?? '', TOO_LARGE);
});
