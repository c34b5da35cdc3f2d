/**
 * Failover benchmark: how long objects wait for a handler when the replica at work goes away, for
 * this runtime's Lease leader election, its Kopf-style peering, and Python Kopf 1.44's peering, on
 * one local control plane.
 *
 *   node bench/failover/run.ts [--repeat 3] [--lifetime 60] [--contestants lease,peering,kopf]
 *
 * Per contestant and round: two replicas (the first at work, the second standing by: a lower
 * priority, or not holding the Lease); the first is stopped (SIGTERM) or killed (SIGKILL), an
 * object is created at that moment, and the time until its creation handler's result arrives is
 * measured (the standby's). Defaults are the real ones: Leases of 15 s renewed every 2 s; peer
 * records living `--lifetime` seconds (60 by default, as Kopf's).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KubeClient, createObject, getObject, isNotFound } from '../../runtime/kube/index.ts';
import { startControlPlane, runOperator, type RunningOperator } from '../../runtime/testing.ts';
import { peeringManifests, peeringResources } from '../../runtime/peering/peering-resources.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { kopfRunCommand } from '../../test/e2e/pykopf.ts';
import { benchOptions, chosen } from '../lib/options.ts';
import { tableHead, tableRow } from '../lib/tables.ts';

const values = benchOptions({ repeat: 3, lifetime: 60, contestants: 'lease,peering,kopf' });
const repeat = values.repeat;
const NAMESPACE = 'default';

interface Contestant {
  name: string;
  /** What a replica says once it is at work, or standing by. */
  active: RegExp;
  standby: RegExp;
  start(replica: string, priority: number): RunningOperator;
}

const dir = mkdtempSync(join(tmpdir(), 'kopf-bench-failover-'));
const cp = await startControlPlane();
const client = KubeClient.fromKubeConfig(cp.kubeconfig);
try {
  const crds = join(dir, 'peering-crds.yaml');
  writeFileSync(crds, peeringManifests().slice(0, 2).map((d) => stringify(d)).join('---\n'));
  await cp.installCrds([CRD_YAML, crds]);
  await createObject(client, peeringResources(false)[0]!, { metadata: { name: 'default', namespace: NAMESPACE } });
  const kopf = await kopfRunCommand();
  const env = (replica: string) => ({ PEER_NAME: replica, PEERING_LIFETIME: String(values.lifetime) });
  const common = { kubeconfigPath: cp.kubeconfigPath, echo: false };
  const all: Contestant[] = [
    {
      name: 'lease', active: /Became the leader/, standby: /standing by/,
      start: (replica) => runOperator({ ...common, files: [join(import.meta.dirname, 'operator.ts')], env: env(replica),
        args: ['-n', NAMESPACE, '--standalone', '--leader-election=bench'] }),
    },
    {
      name: 'peering', active: /Starting the watch-stream|Resuming operations/, standby: /Keep-alive in .*: ok/,
      start: (replica, priority) => runOperator({ ...common, files: [
        join(import.meta.dirname, 'operator.ts')
      ], env: env(replica),
        args: ['-n', NAMESPACE, '--verbose', '--priority', String(priority)] }),
    },
    {
      name: 'kopf', active: /Starting the watch-stream|Resuming operations/, standby: /Keep-alive in .*: ok/,
      start: (replica, priority) => runOperator({ ...common, command: kopf, files: [
        join(import.meta.dirname, 'operator_kopf.py')
      ],
        env: env(replica), args: ['-n', NAMESPACE, '--verbose', '--priority', String(priority)] }),
    },
  ];
  const contestants = chosen(values.contestants, Object.fromEntries(all.map((c) => [c.name, c])));
  const rows: string[] = [];
  for (const contestant of contestants) {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const seconds: number[] = [];
      for (let round = 0; round < repeat; round++) seconds.push(await measure(contestant, signal, round));
      rows.push(tableRow([contestant.name, signal, seconds.map((s) => s.toFixed(2)).join(', ')]));
      console.log(rows.at(-1));
    }
  }
  const header = ['contestant', 'stop', 'seconds until the standby handled a new object'];
  console.log(`\n${tableHead(header)}\n${rows.join('\n')}`);
} finally {
  client.close();
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** One failover: the first replica at work, the second standing by; the first stopped; a new object timed. */
async function measure(contestant: Contestant, signal: NodeJS.Signals, round: number): Promise<number> {
  const tag = `${contestant.name}-${signal.toLowerCase()}-${round}`;
  const first = contestant.start(`${tag}-a`, 20);
  let second: RunningOperator | undefined;
  try {
    await first.waitFor(contestant.active, { timeout: 120_000 });
    second = contestant.start(`${tag}-b`, 10);
    await second.waitFor(contestant.standby, { timeout: 120_000 });
    const started = performance.now();
    await first.stop({ signal });
    const name = `${tag}-object`;
    await createObject(client, KopfExample, { metadata: { name, namespace: NAMESPACE }, spec: { field: 'x' } });
    await handled(name, 600_000);
    return (performance.now() - started) / 1000;
  } finally {
    await Promise.all([first.stop(), second?.stop()]);
  }
}

async function handled(name: string, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    try {
      const object = await getObject(client, KopfExample, { namespace: NAMESPACE, name });
      if (object.status?.create_fn) return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} was not handled within ${timeout / 1000} s`);
}
