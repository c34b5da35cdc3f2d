/**
 * A resource's watch stream that outlives the resource's absence. When the API server does not
 * serve the resource (404: its CRD was deleted, or is not created yet), the stream says so once,
 * tries again with the client's error backoffs (the last one repeating), and goes on when the
 * resource is served again, re-listing it. Kopf gets the same by watching CRDs and re-scanning;
 * asking for the one resource needs no permission on CRDs.
 *
 * A resource named by a string may be served elsewhere meanwhile (its CRD re-created with another
 * group, or its old version no longer served): `relocate` looks for it, and the stream follows.
 */
import {
  isNotFound, isOrWraps, watchStream, type KubeClient, type StreamEvent, type WatchOptions,
} from '../kube/index.ts';
import { repeatingDelay } from '../kube/backoff.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';

export interface ServedResource {
  /** The descriptor to watch now. */
  current(): ResourceDescriptor;
  /**
   * Called when `was` is not served: finds where the resource is served now. True if `current()`
   * is another descriptor afterwards (found now, or by another stream of the resource before).
   */
  relocate?(was: ResourceDescriptor): Promise<boolean>;
}

/** `what` names the stream in the messages: `The resource kopfexamples.v1.kopf.dev in 'default'`. */
export async function* watchServed<T extends KubeObject>(
  client: KubeClient,
  served: ServedResource,
  options: WatchOptions & { signal: AbortSignal },
  logger: Logger,
  what: (resource: ResourceDescriptor) => string,
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  const backoffs = client.settings.errorBackoffs.length ? client.settings.errorBackoffs : [1];
  for (let misses = 0; !options.signal.aborted;) {
    const resource = served.current();
    try {
      for await (const event of watchStream<T>(client, resource as ResourceDescriptor<T>, options)) {
        if (misses) logger.info(`${what(resource)} is served again.`);
        misses = 0;
        yield event;
      }
      return;
    } catch (error) {
      if (options.signal.aborted || !isOrWraps(error, isNotFound)) throw error;
      if (await served.relocate?.(resource)) { misses = 0; continue; }
      if (!misses) {
        const why = 'Was its CRD deleted, or not created yet?';
        logger.warning(`${what(resource)} is not served (404): waiting until it is. ${why}`);
      }
      const delay = repeatingDelay(backoffs, misses++);
      options.liveness?.retrying(delay); // waiting on purpose for the resource, not silenced
      if (!(await sleep(delay, options.signal))) return;
    }
  }
}

/** How Kopf names a resource in its watch messages: `kopfexamples.v1.kopf.dev`. */
export function watchName(resource: ResourceDescriptor): string {
  return [resource.plural, resource.version, resource.group].filter(Boolean).join('.');
}
