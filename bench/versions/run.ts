/**
 * Versions: what a conversion webhook costs a reader. On a local control plane, 1,000 gadgets
 * (examples/19-versions) stored in v1 are listed as `kubectl get -o json` lists them, in the
 * storage version (no conversion) and in v1alpha1 (every object converted by the operator's
 * webhook, in one review), alternately, `--repeat` times each; the ratio of the medians is what the
 * conversion adds to a list. First, the webhook's own time per object, without the API server: the
 * responder answering one review of N such objects (parsing, converting down with the round-trip
 * check, serialising), against a floor that parses and serialises the same review unconverted,
 * and later as a ratio of the per-object time of the storage-version list.
 *
 * `node bench/versions/run.ts [--n 1000] [--repeat 15] [--warmup 3]`
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { defaultSettings } from '../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../runtime/logging/index.ts';
import { createObject, getObject, type KubeClient } from '../../runtime/kube/index.ts';
import { operator } from '../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../runtime/registry/registry.ts';
import { WebhookServer } from '../../runtime/webhooks/server.ts';
import { conversionResponder } from '../../runtime/conversion/responder.ts';
import { startControlPlane } from '../../runtime/testing.ts';
import { KubeClient as Client } from '../../runtime/kube/index.ts';
import { Gadget } from '../../examples/19-versions/generated/index.ts';
import * as v1alpha1 from '../../examples/19-versions/generated/example.com/v1alpha1.ts';
import { gadgetV1alpha1 } from '../../examples/19-versions/converters.ts';
import { benchOptions } from '../lib/options.ts';
import { fixed, median } from '../lib/tables.ts';

const options = benchOptions({ n: 1000, repeat: 15, warmup: 3 });
const CRD = join(import.meta.dirname, '../../examples/19-versions/crd.yaml');
const NS = 'default';

function gadget(i: number) {
  // Half of them hold what v1alpha1 cannot (paused, replicas other than 1 and 3): the kept fields' path.
  return {
    metadata: { name: `gadget-${String(i).padStart(5, '0')}`, namespace: NS, labels: { bench: 'versions' } },
    spec: { replicas: i % 6, color: `colour-${i % 7}`, ...(i % 2 ? { paused: true } : {}) },
  };
}

/** One `kubectl get gadgets.<version>.example.com -n default -o json`: the whole list, as JSON, parsed. */
async function list(client: KubeClient, version: string): Promise<number> {
  const started = performance.now();
  const { items } = await client.request<{ items: unknown[] }>(
    'GET', `/apis/example.com/${version}/namespaces/${NS}/gadgets`);
  const ms = performance.now() - started;
  if (items.length !== options.n) throw new Error(`Listed ${items.length} gadgets in ${version}, not ${options.n}.`);
  return ms;
}

async function untilConverting(client: KubeClient): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await getObject(client, v1alpha1.Gadget, { namespace: NS, name: 'gadget-00000' })
      .catch((e: Error) => e);
    if (!(read instanceof Error) && read.spec?.size) return;
    if (Date.now() > deadline) throw new Error(`No conversion through the webhook: ${String(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** As the API server sends them: stored objects with their type and server-set metadata. */
function reviewObjects(): unknown[] {
  return Array.from({ length: options.n }, (_, i) => {
    const { metadata, spec } = gadget(i);
    const server = { uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, resourceVersion: String(100 + i),
      generation: 1, creationTimestamp: '2026-11-28T00:00:00Z' };
    return { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { ...metadata, ...server }, spec };
  });
}

/**
 * The responder's time per object for one review of the objects, and the floor's: parsing the
 * review and serialising its objects back unconverted (medians of the repeats).
 */
async function webhookPerObject(objects: unknown[]): Promise<{ webhook: number; floor: number }> {
  const registry = new OperatorRegistry();
  registry.on.convert(Gadget, v1alpha1.Gadget, gadgetV1alpha1);
  const logger = new Logger(new LogConfig({ verbosity: 'quiet' }), 'bench');
  const respond = conversionResponder({ handlers: registry.conversionHandlers, logger });
  const body = JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview',
    request: { uid: 'bench', desiredAPIVersion: 'example.com/v1alpha1', objects } });
  const times: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < options.warmup + options.repeat; i++) {
    let started = performance.now();
    const reply = await respond({ body, webhook: 'gadgets.example.com', headers: {}, sslpeer: {} });
    JSON.stringify(reply.body); // the server sends it as JSON
    const webhook = (performance.now() - started) / objects.length;
    started = performance.now();
    const parsed = JSON.parse(body) as { request: { uid: string; objects: unknown[] } };
    JSON.stringify({ response: { uid: parsed.request.uid, convertedObjects: parsed.request.objects } });
    const floor = (performance.now() - started) / objects.length;
    if (i >= options.warmup) { times.push(webhook); floors.push(floor); }
  }
  return { webhook: median(times), floor: median(floors) };
}

const own = await webhookPerObject(reviewObjects());
process.stdout.write([
  `The webhook's own time per object, one review of ${options.n}, median of ${options.repeat}:`,
  `  ${fixed(own.webhook * 1000, 1)} µs (${fixed(own.webhook / own.floor, 2)}× the floor's`
    + ` ${fixed(own.floor * 1000, 1)} µs: parsing and serialising the review unconverted)`,
  '',
].join('\n'));

const cp = await startControlPlane();
const client = Client.fromKubeConfig(cp.kubeconfig);
try {
  await cp.installCrds([CRD]);
  const registry = new OperatorRegistry();
  registry.on.convert(Gadget, v1alpha1.Gadget, gadgetV1alpha1);
  const settings = defaultSettings({
    posting: { enabled: false },
    admission: { server: new WebhookServer({ addr: '127.0.0.1' }), managed: 'bench.kopf.dev' },
  });
  const op = operator({ registry, settings, kubeconfig: cp.kubeconfig, namespaces: [NS],
    logs: new LogConfig({ verbosity: 'quiet' }) });
  await op.ready;
  try {
    for (let i = 0; i < options.n; i++) await createObject(client, Gadget, gadget(i));
    await untilConverting(client);
    const storage: number[] = [];
    const spoke: number[] = [];
    for (let i = 0; i < options.warmup + options.repeat; i++) {
      const [a, b] = [await list(client, 'v1'), await list(client, 'v1alpha1')];
      if (i >= options.warmup) { storage.push(a); spoke.push(b); }
    }
    const [s, c] = [median(storage), median(spoke)];
    process.stdout.write([
      `Listing ${options.n} gadgets, median of ${options.repeat} (after ${options.warmup} warm-up lists each):`,
      `  storage version (v1):           ${fixed(s, 1)} ms`,
      `  spoke version (v1alpha1):       ${fixed(c, 1)} ms  (${fixed(c / s, 2)}× the storage version's)`,
      `  the webhook's own time per object: ${fixed(own.webhook / (s / options.n), 2)}×`
        + ' the storage-version list\'s time per object',
      '',
    ].join('\n'));
  } finally {
    await op.stop();
  }
} finally {
  client.close();
  await cp.stop();
}
