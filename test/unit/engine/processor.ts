/** The real processing of one resource (KopfExample) against a fake API server, as the engine tests use it. */
import type { OperatorSettings } from '../../../runtime/config/settings.ts';
import type { KubeClient } from '../../../runtime/kube/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { asap } from '../../../runtime/handling/lifecycles.ts';
import { Memories } from '../../../runtime/processing/memories.ts';
import type { RawEvent, ResourceProcessor } from '../../../runtime/processing/processing.ts';
import type { ChangingHandler } from '../../../runtime/registry/handlers.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { processEvent } from '../../../runtime/processing/processing.ts';
import { defaultSettings, type SettingsOverrides } from '../../../runtime/config/settings.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { clientOf, sendJson, startServer } from '../kube/fake-server.ts';

export function processorOf(registry: OperatorRegistry, env: {
  client: KubeClient;
  settings: OperatorSettings;
  logger: Logger;
  stopping: AbortSignal;
  requeue?: (key: string, event: RawEvent) => void;
}): ResourceProcessor {
  const { client, settings, logger, stopping } = env;
  return {
    resource: KopfExample, client, settings, lifecycle: asap, logger, stopping, cancelled: new AbortController().signal,
    changing: registry.resourceHandlers as ChangingHandler[], watching: [],
    memories: new Memories(() => ({})),
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    requeue: env.requeue ?? (() => undefined),
  };
}

/** A KopfExample never handled before, as its first event brings it. */
export const FRESH: KubeObject = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name: 'x', namespace: 'default', uid: 'u1', resourceVersion: '1' }, spec: { field: 'v' } };

/**
 * Processes one event of `body` with the handlers `register` adds (and the `persistence`
 * settings given); returns the bodies of the patches sent (each answered with resourceVersion 2)
 * and the log messages.
 */
export async function processOnce(register: (registry: OperatorRegistry) => void, body: KubeObject, persistence: SettingsOverrides['persistence'] = {}): Promise<{ patches: unknown[]; messages: string[] }> {
  const patches: unknown[] = [];
  const server = await startServer((req, res) => {
    patches.push(JSON.parse(req.body));
    sendJson(res, 200, { metadata: { resourceVersion: '2' } });
  });
  const client = clientOf(server);
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }));
  const settings = defaultSettings({ posting: { enabled: false }, persistence: { consistencyTimeout: 0, ...persistence } });
  const registry = new OperatorRegistry();
  register(registry);
  const stop = new AbortController();
  const proc = processorOf(registry, { client, settings, logger, stopping: stop.signal });
  try {
    await processEvent(proc, 'u1', { type: 'ADDED', object: body }, new AbortController().signal);
    return { patches, messages: capture.messages() };
  } finally {
    stop.abort();
    proc.memories.clear();
    client.close();
    await server.close();
  }
}
