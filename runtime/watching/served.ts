/**
 * A resource's watch stream that outlives the resource's absence. When the API server does not
 * serve the resource (404: its CRD was deleted, or is not created yet), the stream says so once,
 * tries again with the client's error backoffs (the last one repeating), and goes on when the
 * resource is served again, re-listing it. Kopf gets the same by watching CRDs and re-scanning;
 * asking for the one resource needs no permission on CRDs.
 */
import { isNotFound, isOrWraps, watchStream, type KubeClient, type StreamEvent, type WatchOptions } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { sleep } from '../queueing/sleeping.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';

/** `what` names the stream in the messages: `The resource kopfexamples.v1.kopf.dev in 'default'`. */
export async function* watchServed<T extends KubeObject>(
  client: KubeClient, resource: ResourceDescriptor<T>, options: WatchOptions & { signal: AbortSignal }, logger: Logger, what: string,
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  const backoffs = client.settings.errorBackoffs.length ? client.settings.errorBackoffs : [1];
  for (let misses = 0; !options.signal.aborted;) {
    try {
      for await (const event of watchStream<T>(client, resource, options)) {
        if (misses) logger.info(`${what} is served again.`);
        misses = 0;
        yield event;
      }
      return;
    } catch (error) {
      if (options.signal.aborted || !isOrWraps(error, isNotFound)) throw error;
      if (!misses) logger.warning(`${what} is not served (404): waiting until it is. Was its CRD deleted, or not created yet?`);
      const delay = backoffs[Math.min(misses++, backoffs.length - 1)]!;
      if (!(await sleep(delay, options.signal))) return;
    }
  }
}
