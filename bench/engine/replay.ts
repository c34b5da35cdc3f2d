/**
 * The engine benchmark's measured part (run.ts): one object's recorded watch events, from its
 * creation to its deletion under the burst benchmark's operator, replayed through the real
 * processing of this runtime for many objects one after another, with no API server: the client
 * answers each patch at once with the version that the recording's next event carries, so that
 * read-your-writes finds its own write. What is measured is the engine's own work per object
 * (causes, progress, handlers, patches, log lines), without the network.
 *
 *   node replay.ts <events.json> <warmup objects> <measured objects> <callgrind: 0|1>
 */
import { readFileSync } from 'node:fs';
import { defaultSettings } from '../../runtime/config/defaults.ts';
import { KubeClient, staticCredentials } from '../../runtime/kube/index.ts';
import type { RequestOptions } from '../../runtime/kube/index.ts';
import { asap } from '../../runtime/handling/lifecycles.ts';
import { LogConfig, Logger, streamSink } from '../../runtime/logging/index.ts';
import { EventPoster } from '../../runtime/posting/index.ts';
import { Memories } from '../../runtime/processing/memories.ts';
import { KeptFields } from '../../runtime/actions/inconsistencies.ts';
import { processEvent } from '../../runtime/processing/processing.ts';
import type { ResourceProcessor } from '../../runtime/processing/processor.ts';
import type { RawEvent } from '../../runtime/actions/scope.ts';
import type { ChangingHandler } from '../../runtime/registry/handlers.ts';
import { OperatorRegistry } from '../../runtime/registry/registry.ts';
import type { KubeObject } from '../../runtime/structs/resources.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { instrument } from '../callgrind.ts';

const [eventsPath, warmupArg, measuredArg, callgrindArg] = process.argv.slice(2);
/** The recording: the object's events as the watch brought them, and the version each patch made. */
interface Recording {
  events: { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }[];
  /** resourceVersions the operator's patches answered with, in order. */
  patchVersions: string[];
}
const recording = JSON.parse(readFileSync(eventsPath!, 'utf8')) as Recording;
const lines = recording.events.map((event) => JSON.stringify(event));

/** The recorded object at each version, as the API server sent it. */
const wholeObjects = new Map(
  recording.events.map(({ object }) => [object.metadata!.resourceVersion!, Buffer.from(JSON.stringify(object))])
);

/**
 * Answers patches at once, with the versions the recording's patches got, in the same order: as
 * the metadata alone when asked so, else as the whole object the recording holds at that version.
 */
class ReplayClient extends KubeClient {
  #answers: string[] = [];

  expect(versions: readonly string[]): void {
    this.#answers = [...versions];
  }

  override async requestBytes(_method: string, _path: string, options: RequestOptions = {}): Promise<Buffer> {
    if (typeof options.body !== 'string') JSON.stringify(options.body); // as the client encodes a body
    const version = this.#answers.shift() ?? '0';
    const whole = options.accept?.includes('PartialObjectMetadata') ? undefined : wholeObjects.get(version);
    return whole ?? Buffer.from(
      `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"${version}"}}`
    );
  }
}

// The burst benchmark's operator (bench/burst/operator.ts) and `kopf run`'s log format, written nowhere.
const registry = new OperatorRegistry();
const calls = { create: 0, delete: 0 };
registry.on.create(KopfExample, function create_fn() { calls.create++; return { message: 'hello world' }; });
registry.on.delete(KopfExample, function delete_fn() { calls.delete++; });
const settings = defaultSettings({ posting: { enabled: false } });
// The warm-up's lines are looked through for warnings (a replay that the engine found wrong
// measures nothing); the measured part's are dropped unread.
const warnings: string[] = [];
const sink = {
  write: (chunk: string): unknown => warnings.push(...chunk.split('\n').filter((line) => line.includes('WARNING')))
};
const logger = new Logger(new LogConfig({ verbosity: 'normal', format: 'full', sinks: [streamSink(sink)] }));
const client = new ReplayClient(staticCredentials({ server: 'https://127.0.0.1:1', headers: {}, tls: {} }));
const stopping = new AbortController();
const proc: ResourceProcessor = {
  resource: KopfExample,
  client,
  settings,
  lifecycle: asap,
  logger,
  stopping: stopping.signal,
  cancelled: new AbortController().signal,
  changing: registry.resourceHandlers as ChangingHandler[], watching: [],
  memories: new Memories(() => ({})),
  kept: new KeptFields(),
  poster: new EventPoster({ post: async () => undefined, settings, logger }),
  enqueue: () => undefined,
};

/** The queue's pressure once a newer event of the object waits (aborted with a reason, as the queue does). */
const SUPERSEDED = AbortSignal.abort(new Error('a newer event is waiting'));

/**
 * One object's whole life. Each event is parsed from its text, as the watch parses it. An event
 * that the operator's next write will supersede is processed with its pressure already on, as
 * the queue's latest-wins slot does when that write's event is already waiting.
 */
async function lifeOf(n: number): Promise<void> {
  client.expect(recording.patchVersions);
  const key = `uid-${n}`;
  for (const line of lines) {
    // The recording holds the watch's events as they came: each is a request of the kind `event`.
    const event: RawEvent = { kind: 'event', ...(JSON.parse(line) as Omit<RawEvent, 'kind'>) };
    event.object.metadata!.name = `kex-${n}`;
    event.object.metadata!.uid = key;
    await processEvent(proc, key, event, SUPERSEDED);
  }
}

for (let n = 0; n < Number(warmupArg); n++) await lifeOf(n);
await new Promise(setImmediate); // the sink's last batch
if (warnings.length) throw new Error(`the replay logged warnings:\n${warnings.slice(0, 5).join('\n')}`);
sink.write = () => true;
const measured = Number(measuredArg);
await instrument(callgrindArg === '1', true);
const cpu = process.cpuUsage();
for (let n = 0; n < measured; n++) await lifeOf(1_000_000 + n);
const used = process.cpuUsage(cpu);
await instrument(callgrindArg === '1', false);
// The replay must have been the whole life of every object, or its figure means nothing.
const objects = Number(warmupArg) + measured;
if (calls.create !== objects || calls.delete !== objects)
  throw new Error(`the handlers ran ${calls.create} and ${calls.delete} times for ${objects} objects`);
if (proc.memories.size !== 0)
  throw new Error(`${proc.memories.size} objects are still remembered: the replay did not reach their deletion`);
console.log(JSON.stringify({ cpuMicrosPerObject: (used.user + used.system) / measured }));
stopping.abort();
process.exit(0);
