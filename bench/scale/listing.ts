/**
 * A watch's first listing, streamed as its initial events against read in pages: on one local
 * control plane holding N KopfExample objects (put into etcd as bench/scale/run.ts does), rounds
 * alternate between the two ways; each round opens a watch with a fresh client and reads until the
 * listing is done.
 *
 *   node bench/scale/listing.ts [--n 30000] [--rounds 3]
 *
 * Per way, the median over the rounds of: seconds until the listing is done; this process's CPU
 * (parsing what it read); the API server's CPU; the rise of the API server's resident memory over
 * its figure before the round (sampled every 20 ms). Compare the two ways by their ratios.
 */
import { performance } from 'node:perf_hooks';
import { KubeClient, createObject, watchStream } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import type { ControlPlane } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { exampleObject } from '../burst/objects.ts';
import { cpuSeconds } from '../burst/procstat.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions } from '../lib/options.ts';
import { TreeSampler } from '../lib/proctree.ts';
import { fixed, markdownTable, median } from '../lib/tables.ts';
import { seedObjects } from './storage.ts';

const values = benchOptions({ n: 30_000, rounds: 3 });
const NAMESPACE = 'listing';

interface Round {
  seconds: number;
  clientCpu: number;
  serverCpu: number;
  serverRiseMiB: number;
}

async function listOnce(cp: ControlPlane, streaming: boolean): Promise<Round> {
  const apiServerPid = cp.apiServerPid;
  const client = KubeClient.fromKubeConfig(cp.kubeconfig, { streamingLists: streaming });
  const sampler = new TreeSampler(apiServerPid, 20);
  const before = sampler.sample();
  const serverBefore = cpuSeconds(apiServerPid);
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const controller = new AbortController();
  let listed = 0;
  try {
    for await (const event of watchStream(client, KopfExample, { namespace: NAMESPACE, signal: controller.signal })) {
      if (event.type === 'LISTED') listed++;
      if (event.type === 'LISTED_DONE') break;
    }
  } finally {
    controller.abort();
    sampler.stop();
    client.close();
  }
  if (listed !== values.n) throw new Error(`listed ${listed} objects of ${values.n}`);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    seconds: (performance.now() - start) / 1000,
    clientCpu: (cpu.user + cpu.system) / 1e6,
    serverCpu: cpuSeconds(apiServerPid) - serverBefore,
    serverRiseMiB: sampler.peakMiB - before,
  };
}

await onControlPlane(async (cp, client) => {
  await createObject(client, Namespaces, { metadata: { name: NAMESPACE } });
  const objects = Array.from({ length: values.n }, (_, i) => {
    const object = exampleObject(`kex-${String(i).padStart(6, '0')}`);
    object.metadata = { ...object.metadata, namespace: NAMESPACE, labels: { app: 'listing-bench' } };
    return object;
  });
  process.stderr.write(`putting ${values.n} objects into etcd…\n`);
  await seedObjects(client, KopfExample, { etcdUrl: cp.etcdUrl, prefix: '/registry/kopf.dev/kopfexamples/' }, objects);
  const rounds: Record<'streamed' | 'paged', Round[]> = { streamed: [], paged: [] };
  for (let round = 0; round < values.rounds; round++) {
    for (const way of ['streamed', 'paged'] as const) {
      const result = await listOnce(cp, way === 'streamed');
      rounds[way].push(result);
      process.stderr.write(`${way}: ${result.seconds.toFixed(2)} s\n`);
    }
  }
  const row = (way: 'streamed' | 'paged') => {
    const of = (pick: (r: Round) => number) => median(rounds[way].map(pick));
    return [way, String(values.n), fixed(of((r) => r.seconds), 2), fixed(of((r) => r.clientCpu), 2),
      fixed(of((r) => r.serverCpu), 2), fixed(of((r) => r.serverRiseMiB), 0)];
  };
  console.log(markdownTable(
    ['listing', 'N', 'seconds', 'client CPU s', 'API server CPU s', 'API server memory rise MiB'],
    [row('streamed'), row('paged')],
  ));
});
