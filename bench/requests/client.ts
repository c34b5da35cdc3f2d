/**
 * One contestant of the request benchmark (run.ts), in a process of its own: PATCHes to the
 * benchmark's objects from `concurrency` concurrent callers, a warm-up first, then the measured
 * requests. Prints the measured phase's CPU per request and rate as one line of JSON. Under
 * callgrind (`--callgrind`), instrumentation is switched on for the measured phase only.
 *
 *   node client.ts <ours|node> <kubeconfig> <namespace> <objects> <warmup> <requests> <concurrency> <callgrind: 0|1>
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';
import { KubeClient } from '../../runtime/kube/index.ts';
import { patchObjectVersion, resourceVersionIn } from '../../runtime/kube/objects.ts';
import { staticCredentials } from '../../runtime/kube/credentials/credentials.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { instrument } from '../callgrind.ts';

const [
  contestant,
  kubeconfigPath,
  namespace,
  objectsArg,
  warmupArg,
  requestsArg,
  concurrencyArg,
  callgrindArg,
] = process.argv.slice(2);
const OBJECTS = Number(objectsArg);
const CONCURRENCY = Number(concurrencyArg);

/** The test control plane's kubeconfig: one cluster, one user with a client certificate. */
interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}
const kubeconfig = parse(readFileSync(kubeconfigPath!, 'utf8')) as Kubeconfig;
const { server, 'certificate-authority-data': caData } = kubeconfig.clusters[0]!.cluster;
const { 'client-certificate-data': certData, 'client-key-data': keyData } = kubeconfig.users[0]!.user;
const tls = {
  ca: Buffer.from(caData, 'base64'),
  cert: Buffer.from(certData, 'base64'),
  key: Buffer.from(keyData, 'base64'),
};

const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const patchOf = (i: number) => ({ metadata: { annotations: { 'bench.kopf.dev/n': String(i) } } });

/** One PATCH through this runtime's client: what the engine sends for a diff-base or a status. */
function oursPatcher(): (i: number) => Promise<unknown> {
  const client = new KubeClient(staticCredentials({ server, headers: {}, tls }));
  return (i) => patchObjectVersion(client, KopfExample, { namespace: namespace!, name: `o${i % OBJECTS}` }, patchOf(i));
}

/** The same PATCH through Node's HTTPS client with a keep-alive agent of as many connections. */
function nodePatcher(): (i: number) => Promise<unknown> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ...tls });
  const base = new URL(server);
  return (i) => new Promise((resolve, reject) => {
    const body = JSON.stringify(patchOf(i));
    const req = request({
      agent, host: base.hostname, port: base.port, method: 'PATCH',
      path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples/o${i % OBJECTS}`,
      headers: {
        Accept: METADATA_ONLY,
        'Content-Type': 'application/merge-patch+json',
        'User-Agent': 'kopf-bench',
        'Content-Length': Buffer.byteLength(body),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on(
        'end',
        () => (
          res.statusCode === 200 ? resolve(resourceVersionIn(Buffer.concat(chunks))) : reject(
            new Error(`HTTP ${res.statusCode}`)
          )
        ),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const patch = contestant === 'node' ? nodePatcher() : oursPatcher();

async function run(count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) await patch(next++);
  }));
}

await run(Number(warmupArg));
const requests = Number(requestsArg);
await instrument(callgrindArg === '1', true);
const cpu = process.cpuUsage();
const started = performance.now();
await run(requests);
const used = process.cpuUsage(cpu);
const seconds = (performance.now() - started) / 1000;
await instrument(callgrindArg === '1', false);
console.log(
  JSON.stringify({ cpuMicrosPerRequest: (used.user + used.system) / requests, requestsPerSecond: requests / seconds })
);
process.exit(0);
