/** The real processing of one resource (KopfExample) against a fake API server, as the engine tests use it. */
import type { TestContext } from 'node:test';
import type { OperatorSettings, SettingsOverrides } from '../../../runtime/config/settings.ts';
import type { KubeClient } from '../../../runtime/kube/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { asap } from '../../../runtime/handling/lifecycles.ts';
import { Memories } from '../../../runtime/processing/memories.ts';
import { KeptFields } from '../../../runtime/actions/inconsistencies.ts';
import type { ResourceProcessor } from '../../../runtime/processing/processor.ts';
import type { RawEvent } from '../../../runtime/actions/scope.ts';
import type { ObjectReconciling } from '../../../runtime/actions/engines.ts';
import type { ChangingHandler } from '../../../runtime/registry/handlers.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger, captureLogs, type LogRecord } from '../../../runtime/logging/index.ts';
import { clientOf, sendJson, startServer, type Received } from '../kube/fake-server.ts';
import { applyMergePatch, type Fields } from '../../../runtime/structs/patches.ts';
import { copyJson } from '../../../runtime/structs/diffs.ts';

export function processorOf(registry: OperatorRegistry, env: {
  client: KubeClient;
  settings: OperatorSettings;
  logger: Logger;
  stopping: AbortSignal;
  enqueue?: (key: string, request: RawEvent) => void;
  kept?: KeptFields;
}): ResourceProcessor {
  const { client, settings, logger, stopping } = env;
  return {
    resource: KopfExample, client, settings, lifecycle: asap, logger, stopping, cancelled: new AbortController().signal,
    changing: registry.resourceHandlers as ChangingHandler[], watching: [],
    memories: new Memories(() => ({})),
    kept: env.kept ?? new KeptFields(),
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    enqueue: env.enqueue ?? (() => undefined),
  };
}

/**
 * A fake API server holding one object (FRESH at first): a GET answers it, a PATCH merges into it
 * and stores it under the next version (`stored`, oldest first: what a watch would bring, one event
 * each; `next()` takes a version for a change of the test's own). Closed with the test, as is the
 * operator's stop signal.
 */
export async function storingServer(t: TestContext) {
  const object = copyJson(FRESH) as Fields;
  const stored: KubeObject[] = [];
  let version = 1;
  let reads = 0;
  const next = () => String(++version);
  const server = await startServer((req, res) => {
    if (req.method === 'GET') { reads++; return sendJson(res, 200, object); }
    applyMergePatch(object, JSON.parse(req.body) as unknown);
    applyMergePatch(object, { metadata: { resourceVersion: next() } });
    stored.push(copyJson(object) as KubeObject);
    sendJson(res, 200, object);
  });
  const client = clientOf(server);
  const stop = new AbortController();
  t.after(async () => { stop.abort(); client.close(); await server.close(); });
  return { object, client, stop, stored, next, gets: () => reads };
}

/** A KopfExample never handled before, as its first event brings it. */
export const FRESH: KubeObject = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1' },
  spec: { field: 'v' },
};

/**
 * Processes one event of `body` with the handlers `register` adds (and the `persistence`
 * settings given); returns the bodies of the patches sent and the log messages. Each merge-patch
 * is applied to the object, which is answered whole with resourceVersion 2, after `prune` (if
 * given) has removed from it what the API server would drop. `kept` carries what the resource's
 * patches were seen to keep from one call to the next; `status` turns on the status that tools read;
 * `reconciling` stands for the resource's reconciler.
 */
export async function processOnce(
  register: (registry: OperatorRegistry) => void,
  body: KubeObject,
  persistence: SettingsOverrides['persistence'] = {},
  options: {
    prune?: (object: Fields) => void; kept?: KeptFields; status?: SettingsOverrides['status'];
    reconciling?: ObjectReconciling;
  } = {},
): Promise<{ patches: unknown[]; messages: string[]; records: readonly LogRecord[]; requests: Received[] }> {
  const patches: unknown[] = [];
  const object = copyJson(body) as Fields;
  const server = await startServer((req, res) => {
    const patch = JSON.parse(req.body) as unknown;
    patches.push(patch);
    if (req.headers['content-type'] === 'application/merge-patch+json') applyMergePatch(object, patch);
    options.prune?.(object);
    applyMergePatch(object, { metadata: { resourceVersion: '2' } });
    sendJson(res, 200, object);
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings(
    { posting: { enabled: false }, persistence: { consistencyTimeout: 0, ...persistence }, status: options.status }
  );
  const registry = new OperatorRegistry();
  register(registry);
  const stop = new AbortController();
  const proc = {
    ...processorOf(registry, { client, settings, logger, stopping: stop.signal, kept: options.kept }),
    reconciling: options.reconciling,
  };
  try {
    await processEvent(proc, 'u1', { kind: 'event', type: 'ADDED', object: body }, new AbortController().signal);
    return { patches, messages: capture.messages(), records: capture.records, requests: server.received };
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}
