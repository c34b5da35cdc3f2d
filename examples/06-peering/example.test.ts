/**
 * Kopf's example rules for the operator alone, then the example's own story on a control plane
 * with the peering CRDs, for this runtime and for its Python twin: a normal operator pauses while
 * a `--dev` one runs, an object created meanwhile is the `--dev` one's, and the normal one
 * resumes when the other exits.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../runtime/testing.ts';
import { runOperator } from '../../runtime/testing/runner.ts';
import { peeringManifests, peeringResources } from '../../runtime/peering/peering-resources.ts';
import { CRD_YAML, OBJECT_YAML, successLine, testExample } from '../../test/e2e/rules.ts';
import { Cluster, loadYaml, refOf } from '../../test/e2e/cluster.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { KopfExample } from '../kopfexample.ts';

testExample(import.meta.dirname);

let cp: ControlPlane;
let cluster: Cluster;

before(async () => {
  cp = await startControlPlane();
  const [crds, objects] = [peeringManifests().slice(0, 2), peeringManifests().slice(2)];
  await cp.installCrds([CRD_YAML, ...crds]);
  cluster = new Cluster(cp.kubeconfigPath);
  for (const object of objects)
    await cluster.create(peeringResources(object.kind === 'ClusterKopfPeering')[0]!, object);
});

after(async () => {
  cluster?.close();
  await cp?.stop();
});

for (const twin of [false, true]) {
  test(`06-peering: a --dev operator pauses a normal one, which resumes when it ` +
    `exits${twin ? ' (Python Kopf)' : ''}`, async () => {
    const command = twin ? await kopfRunCommand() : undefined;
    const files = [join(import.meta.dirname, twin ? 'kopf_twin.py' : 'example.ts')];
    const start = (args: string[]) => runOperator(
      { command, files, kubeconfigPath: cp.kubeconfigPath, args: ['-n', 'default', '--verbose', ...args] }
    );
    const [object] = loadYaml<KopfExample>(OBJECT_YAML);
    const ref = refOf(object!);
    await cluster.purge(KopfExample, ref);
    const normal = start([]);
    const dev = start(['--dev']);
    try {
      await normal.waitFor(/Pausing operations in favour of \[<Peer .*priority=666/);
      // The pause is announced before the stream is closed: wait until it is (both runtimes say so).
      await normal.waitFor(/Pausing the watch-stream for kopfexamples/);
      await dev.waitFor(/Starting the watch-stream for kopfexamples/);
      await cluster.create(KopfExample, object!);
      await dev.waitFor(successLine('create_fn'));
      await cluster.delete(KopfExample, ref);
      await cluster.waitForGone(KopfExample, ref);
      const exit = await dev.stop();
      assert.equal(exit.exitCode, 0, exit.output);
      await normal.waitFor('Resuming operations after the pause.');
      assert.doesNotMatch(normal.output, /Handler 'create_fn'/, 'the paused operator handled the object');
      assert.doesNotMatch(dev.output, /Pausing operations/, 'the --dev operator paused');
    } finally {
      await Promise.all([normal.stop(), dev.stop()]);
    }
  });
}
