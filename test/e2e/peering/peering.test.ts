/**
 * Peering on a real control plane, between two operators of this runtime and between this runtime
 * and Python Kopf 1.44, both ways: the one with the lower priority pauses while the other runs and
 * resumes when it exits; equal priorities pause both; `kopf freeze` from either CLI pauses either
 * operator; a mandatory peering without its object processes nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';
import { runOperator, type RunningOperator } from '../../../runtime/testing/runner.ts';
import { peeringManifests, peeringResources, type PeeringObject } from '../../../runtime/peering/peering-resources.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster, type ObjectRef } from '../cluster.ts';
import { CRD_YAML, tracebackIn } from '../rules.ts';
import { kopfPython } from '../pykopf.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '..', '..', '..', 'runtime', 'cli', 'main.ts');
const NAMESPACE = 'default';
const KopfPeerings = peeringResources(false)[0]!; // kopf.dev/v1

interface Side { name: string; command?: string[]; files: string[]; cli: string[] }

let cp: ControlPlane;
let cluster: Cluster;
let ours: Side;
let kopf: Side;

before(async () => {
  const [plane, python] = await Promise.all([startControlPlane(), kopfPython()]);
  cp = plane;
  await cp.installCrds([CRD_YAML, ...peeringManifests(NAMESPACE).slice(0, 2)]);
  cluster = new Cluster(cp.kubeconfigPath);
  ours = { name: 'ours', files: [join(import.meta.dirname, 'peering.ts')], cli: [process.execPath, CLI] };
  kopf = {
    name: 'kopf', command: [python, '-m', 'kopf', 'run'], files: [join(import.meta.dirname, 'kopf_peering.py')],
    cli: [python, '-m', 'kopf'],
  };
});

after(async () => {
  cluster?.close();
  await cp?.stop();
});

const peeringRef = (name: string): ObjectRef => ({ namespace: NAMESPACE, name });

async function ensurePeering(name: string): Promise<void> {
  await cluster.purge(KopfPeerings, peeringRef(name));
  await cluster.create<PeeringObject>(
    KopfPeerings,
    { apiVersion: 'kopf.dev/v1', kind: 'KopfPeering', metadata: { name } },
    NAMESPACE,
  );
}

function start(side: Side, label: string, args: string[]): RunningOperator {
  return runOperator({
    command: side.command, files: side.files, kubeconfigPath: cp.kubeconfigPath,
    args: ['-n', NAMESPACE, '--verbose', ...args], env: { PEER_NAME: label },
  });
}

async function stopCleanly(operator: RunningOperator, name: string): Promise<void> {
  const exit = await operator.stop();
  assert.equal(exit.exitCode, 0, `${name} exited with ${exit.exitCode} (signal ${exit.signal}):\n${exit.output}`);
  assert.equal(tracebackIn(exit.output), null, `${name} printed a traceback:\n${exit.output}`);
}

/** Runs `body` with the operators, stopping them all afterwards, also when it fails. */
async function withOperators(operators: RunningOperator[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    await Promise.all(operators.map((o) => o.stop()));
  }
}

const WATCHING = /Starting the watch-stream for kopfexamples/;

/** Which operator's handler wrote the result. */
function handledBy(object: KopfExample | null, id: 'create_fn' | 'update_fn'): string | undefined {
  return (object?.status?.[id] as { by?: string } | undefined)?.by;
}

async function createHandled(name: string): Promise<string> {
  const ref = { namespace: NAMESPACE, name };
  await cluster.purge(KopfExample, ref);
  await cluster.create(
    KopfExample,
    { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name }, spec: { field: 'x' } },
    NAMESPACE,
  );
  return handledBy(await cluster.waitFor(KopfExample, ref, (o) => Boolean(handledBy(o, 'create_fn'))), 'create_fn')!;
}

async function updateHandled(name: string, field: string): Promise<string> {
  const ref = { namespace: NAMESPACE, name };
  await cluster.mergePatch(KopfExample, ref, { spec: { field } });
  return handledBy(await cluster.waitFor(KopfExample, ref, (o) => Boolean(handledBy(o, 'update_fn'))), 'update_fn')!;
}

for (const [low, high] of [['ours', 'ours'], ['kopf', 'ours'], ['ours', 'kopf']] as const) {
  test(`${high} with --dev pauses ${low} (priority 0), which resumes when ${high} exits`, async () => {
    await ensurePeering('default');
    const lowSide = low === 'ours' ? ours : kopf;
    const highSide = high === 'ours' ? ours : kopf;
    const prefix = `${low}-${high}`;
    const lower = start(lowSide, 'low', []);
    const operators = [lower];
    await withOperators(operators, async () => {
      await lower.waitFor(WATCHING);
      assert.equal(await createHandled(`${prefix}-before`), 'low');

      const higher = start(highSide, 'high', ['--dev']);
      operators.push(higher);
      await lower.waitFor(/Pausing operations in favour of \[<Peer .*priority=666/);
      await lower.waitFor(/Pausing the watch-stream for kopfexamples/); // announced before it is closed
      await higher.waitFor(WATCHING);
      assert.equal(await createHandled(`${prefix}-paused`), 'high');
      assert.doesNotMatch(
        lower.output,
        new RegExp(`${prefix}-paused\\].*Handler 'create_fn'`),
        `${low} handled while paused`,
      );

      await stopCleanly(higher, high);
      await lower.waitFor('Resuming operations after the pause.');
      assert.equal(await updateHandled(`${prefix}-paused`, 'resumed'), 'low');
      assert.doesNotMatch(higher.output, /Pausing operations/, `${high} paused although it outranks ${low}`);
    });
    await stopCleanly(lower, low);
  });
}

test('operators of the same priority, ours and Kopf, both pause with Kopf\'s warning', async () => {
  await ensurePeering('default');
  const one = start(ours, 'ours', ['--priority', '7']);
  const two = start(kopf, 'kopf', ['--priority', '7']);
  await withOperators([one, two], async () => {
    for (const side of [one, two]) {
      await side.waitFor(/Possibly conflicting operators with the same priority: \[<Peer /);
      await side.waitFor(/Pausing all operators, including self: \[<Peer /);
      // The pause is decided before the stream ends: an event that comes meanwhile is still handled.
      await side.waitFor(/Pausing the watch-stream for kopfexamples/);
    }
    const ref = { namespace: NAMESPACE, name: 'conflicted' };
    await cluster.purge(KopfExample, ref);
    await cluster.create(
      KopfExample,
      { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'conflicted' }, spec: { field: 'x' } },
      NAMESPACE,
    );
    // Both stay paused; when one leaves, the other resumes and handles what came meanwhile.
    await two.stop();
    await one.waitFor('Resuming operations after the pause.');
    assert.equal(
      handledBy(await cluster.waitFor(KopfExample, ref, (o) => Boolean(o?.status?.create_fn)), 'create_fn'),
      'ours',
    );
    assert.doesNotMatch(two.output, /\[default\/conflicted\] Handler 'create_fn'/, 'Kopf handled while paused');
  });
});

for (const [freezer, frozen] of [['kopf', 'ours'], ['ours', 'kopf']] as const) {
  test(`kopf freeze from ${freezer}'s CLI pauses ${frozen}'s operator; kopf resume ends it`, async () => {
    await ensurePeering('default');
    const cli = (freezer === 'ours' ? ours : kopf).cli;
    const operator = start(frozen === 'ours' ? ours : kopf, frozen, []);
    await withOperators([operator], async () => {
      await operator.waitFor(WATCHING);
      const scope = ['-n', NAMESPACE, '--peering', 'default', '--id', `freezer-${freezer}`];
      await run(
        cli[0]!,
        [...cli.slice(1), 'freeze', ...scope, '--lifetime', '600'],
        { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } },
      );
      await operator.waitFor(/Pausing operations in favour of \[<Peer freezer-/);
      await run(
        cli[0]!,
        [...cli.slice(1), 'resume', ...scope],
        { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } },
      );
      await operator.waitFor('Resuming operations after the pause.');
      assert.equal(await createHandled(`frozen-by-${freezer}`), frozen);
    });
  });
}

test('a mandatory peering without its object processes nothing until the object is created', async () => {
  await cluster.purge(KopfPeerings, peeringRef('mandatory'));
  const operator = start(ours, 'ours', ['--peering', 'mandatory']);
  await withOperators([operator], async () => {
    await operator.waitFor(/The peering object 'mandatory' in 'default' does not exist: processing stays paused/);
    const ref = { namespace: NAMESPACE, name: 'waiting' };
    await cluster.purge(KopfExample, ref);
    await cluster.create(
      KopfExample,
      { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'waiting' }, spec: { field: 'x' } },
      NAMESPACE,
    );
    assert.doesNotMatch(operator.output, WATCHING, 'a watch stream started while paused');
    await ensurePeering('mandatory');
    await operator.waitFor('Resuming operations after the pause.');
    const handled = await cluster.waitFor(KopfExample, ref, (o) => Boolean(o?.status?.create_fn));
    assert.equal(handledBy(handled, 'create_fn'), 'ours');
  });
  await stopCleanly(operator, 'ours');
  const peering = await cluster.read<PeeringObject>(KopfPeerings, peeringRef('mandatory'));
  assert.deepEqual(Object.values(peering.status ?? {}).filter(Boolean), [], 'the record is removed on exit');
});
