/**
 * Request benchmark: the cost of one API request in this runtime's HTTP layer, against Node's own
 * HTTPS client doing the same request, on one local control plane. Each contestant runs in a
 * process of its own (client.ts), `--single-threaded` as `kopf run` runs operators: PATCHes of
 * KopfExample objects with a small merge patch, asking for the metadata only (as the engine's
 * writes do), from concurrent callers over keep-alive connections; a warm-up first, so that the
 * measured requests run compiled code.
 *
 *   node bench/requests/run.ts [--requests 5000] [--warmup 3000] [--concurrency 32] [--objects 64] [--repeat 1]
 *     [--contestants ours,node] [--callgrind]
 *
 * Per run: CPU microseconds per request and requests per second of the measured phase. With
 * `--callgrind` (valgrind installed), each contestant runs under callgrind, instrumented for the
 * measured phase only, and the table gives instructions per request, in all and without V8's
 * compilers and collector (`../callgrind.ts`): unlike CPU time, the latter repeats to within a few
 * percent whatever else the machine is doing, so changes of a few percent show. Then the ratios of this runtime to
 * Node's client.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createObject, KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { startControlPlane } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { countOf, underCallgrind } from '../callgrind.ts';
import { benchOptions, chosen } from '../lib/options.ts';
import { fixed, markdownTable, mean } from '../lib/tables.ts';

const values = benchOptions({
  requests: 5000, warmup: 3000, concurrency: 32, objects: 64, repeat: 1, contestants: 'ours,node', callgrind: false,
});

const LABELS: Record<string, string> = { ours: "this runtime's client", node: "Node's HTTPS client" };
const contestants = chosen(values.contestants, { ours: 'ours', node: 'node' });
const NAMESPACE = 'bench-requests';

interface Measurement {
  contestant: string;
  run: number;
  cpuMicrosPerRequest: number;
  requestsPerSecond: number;
  /** Thousands of instructions per request; null without `--callgrind`. */
  kiloInstructions: number | null;
  /** The same without V8's compilers and collector: the code's own work; null without `--callgrind`. */
  kiloInstructionsOwn: number | null;
}

function runClient(contestant: string, kubeconfigPath: string, run: number, scratch: string): Promise<Measurement> {
  const args = [
    '--single-threaded', join(import.meta.dirname, 'client.ts'), contestant, kubeconfigPath, NAMESPACE,
    ...[values.objects, values.warmup, values.requests, values.concurrency].map(String),
    values.callgrind ? '1' : '0',
  ];
  const profile = `callgrind-${contestant}-${run}.out`;
  const [command, argv] = values.callgrind ? underCallgrind(scratch, profile, process.execPath, args) : [
    process.execPath,
    args,
  ];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${contestant} failed: ${error.message}\n${stderr.slice(-2000)}`));
      const result = JSON.parse(
        stdout.trim().split('\n').at(-1)!
      ) as Pick<Measurement, 'cpuMicrosPerRequest' | 'requestsPerSecond'>;
      const count = values.callgrind ? countOf(stderr, scratch, profile) : undefined;
      const perRequest = (instructions: number) => instructions / values.requests / 1000;
      resolve({
        contestant, run, ...result,
        kiloInstructions: count ? perRequest(count.total) : null,
        kiloInstructionsOwn: count ? perRequest(count.total - count.compiling - count.collecting) : null,
      });
    });
  });
}

function report(results: Measurement[]): string {
  const header = ['contestant', 'run', 'CPU µs / request', 'requests / s', 'instructions / request, k', 'own work, k'];
  const lines = [markdownTable(header, results.map((m) => [
    LABELS[m.contestant]!, String(m.run), fixed(m.cpuMicrosPerRequest, 1), fixed(m.requestsPerSecond, 0),
    fixed(m.kiloInstructions, 1), fixed(m.kiloInstructionsOwn, 1),
  ]))];
  const of = (name: string, pick: (m: Measurement) => number | null) => {
    const xs = results.filter((m) => m.contestant === name).map(pick).filter((x): x is number => x !== null);
    return xs.length ? mean(xs) : null;
  };
  if (contestants.includes('ours') && contestants.includes('node')) {
    const ratio = (pick: (m: Measurement) => number | null) => {
      const ours = of('ours', pick);
      const node = of('node', pick);
      return ours === null || node === null ? null : ours / node;
    };
    lines.push('', markdownTable(['metric (means)', 'this runtime / Node', ''], [
      ['CPU per request', fixed(ratio((m) => m.cpuMicrosPerRequest), 2), 'lower is better'],
      ['requests / s', fixed(ratio((m) => m.requestsPerSecond), 2), 'higher is better'],
      ['instructions per request', fixed(ratio((m) => m.kiloInstructions), 2), 'lower is better'],
      [
        "own work (without V8's compilers and collector)", fixed(ratio((m) => m.kiloInstructionsOwn), 2),
        'lower is better',
      ],
    ]));
  }
  return lines.join('\n');
}

const scratch = mkdtempSync(join(tmpdir(), 'kopf-bench-requests-'));
const cp = await startControlPlane();
try {
  await cp.installCrds([CRD_YAML]);
  const client = KubeClient.fromKubeConfig(cp.kubeconfig);
  await createObject(client, Namespaces, { metadata: { name: NAMESPACE } });
  for (let i = 0; i < values.objects; i++) {
    await createObject(
      client,
      KopfExample,
      { metadata: { name: `o${i}` }, spec: { field: 'value' } } as KopfExample,
      { namespace: NAMESPACE },
    );
  }
  client.close();
  const results: Measurement[] = [];
  for (let run = 1; run <= values.repeat; run++) {
    for (const contestant of contestants) {
      process.stderr.write(`run ${run}: ${LABELS[contestant]}, ${values.requests} requests after ${values.warmup}…\n`);
      results.push(await runClient(contestant, cp.kubeconfigPath, run, scratch));
    }
  }
  console.log(
    `\nRequests: PATCH with a merge patch, metadata-only answers, ${values.concurrency} concurrent callers, one ` +
      `local control plane.\n`
  );
  console.log(report(results));
} finally {
  await cp.stop();
  rmSync(scratch, { recursive: true, force: true });
}
