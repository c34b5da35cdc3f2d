/** The real processing of one resource (KopfExample) against a fake API server, as the engine tests use it. */
import type { OperatorSettings } from '../../../runtime/config/settings.ts';
import type { KubeClient } from '../../../runtime/kube/index.ts';
import type { Logger } from '../../../runtime/logging/index.ts';
import { EventPoster } from '../../../runtime/posting/index.ts';
import { asap } from '../../../runtime/handling/lifecycles.ts';
import { Memories } from '../../../runtime/processing/memories.ts';
import type { RawEvent, ResourceProcessor } from '../../../runtime/processing/processing.ts';
import type { ChangingHandler } from '../../../runtime/registry/handlers.ts';
import type { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';

export function processorOf(registry: OperatorRegistry, env: {
  client: KubeClient;
  settings: OperatorSettings;
  logger: Logger;
  stopping: AbortSignal;
  requeue?: (key: string, event: RawEvent) => void;
}): ResourceProcessor {
  const { client, settings, logger, stopping } = env;
  return {
    resource: KopfExample, client, settings, lifecycle: asap, logger, stopping,
    changing: registry.resourceHandlers as ChangingHandler[], watching: [],
    memories: new Memories(() => ({})),
    poster: new EventPoster({ post: async () => undefined, settings, logger }),
    requeue: env.requeue ?? (() => undefined),
  };
}
