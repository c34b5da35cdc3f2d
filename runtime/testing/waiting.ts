/**
 * Waiting for an object to reach a state, by watching it (never polling): what a test of a timer
 * or a daemon awaits when it waits for their writes, in or out of the operator's process.
 */
import { watchStream, type KubeClient } from '../kube/index.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../structs/resources.ts';

export interface ObjectWait {
  /** Milliseconds; 30 s by default. */
  timeout?: number;
  /** Ends the wait early (rejects with its reason). */
  signal?: AbortSignal;
}

/**
 * Resolves with the object once `predicate` holds for it (`null` stands for "absent"), checked
 * after the listing and after every change. Rejects after `timeout` ms with the last state seen.
 */
export async function waitForObject<T extends KubeObject>(
  client: KubeClient, resource: ResourceDescriptor<T, FieldMap>, ref: { namespace: string | null; name: string },
  predicate: (object: T | null) => boolean, options: ObjectWait = {},
): Promise<T | null> {
  const { timeout = 30_000 } = options;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeout);
  const abort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', abort, { once: true });
  let last: T | null = null;
  try {
    for await (
      const event of watchStream(
        client,
        resource,
        { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}`, signal: stop.signal },
      )
    ) {
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'LISTED') { last = event.object; continue; }
      if (event.type !== 'LISTED_DONE') last = event.type === 'DELETED' ? null : event.object;
      if (predicate(last)) return last;
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    stop.abort();
  }
  if (options.signal?.aborted) throw options.signal.reason;
  const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  throw new Error(
    `${resource.kind} ${where} did not reach the expected state within ${timeout} ms; last ` +
      `seen:\n${JSON.stringify(last, null, 2)}`
  );
}
