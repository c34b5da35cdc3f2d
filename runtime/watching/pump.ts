/**
 * The pump from a resource's watch stream into its queue, one per resource and namespace: the
 * events of the stream (`served.ts`) become the objects' events in their queue, keyed by the
 * object, and listed objects become events of type `null`, as in Kopf. A pause of the operator
 * closes the stream; the resume lists the objects again, as Kopf does, so nothing changed
 * meanwhile is missed.
 */
import { keyOf, type KubeClient, type WatchFreshness } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { thrownText } from '../structs/errors.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import type { IndexReadiness } from '../indices/index-readiness.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import { resourceLabel } from '../observation/resource-names.ts';
import { watchName, watchServed, type ServedResource } from './served.ts';

/** One object's event as the stream brings it, a request of the kind `event` for its queue. */
export interface WatchedEvent {
  readonly kind: 'event';
  /** `null` for objects from a listing, as in Kopf. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | null;
  object: KubeObject;
}

export interface Pump {
  readonly client: KubeClient;
  readonly served: ServedResource;
  /** Where the events go: the resource's queue. */
  push(key: string, event: WatchedEvent): void;
  /** While any is on, no stream runs. */
  readonly pauses: ToggleSet;
  /** When each stream last heard from the server (for the liveness endpoint). */
  readonly freshness: WatchFreshness;
  readonly inactivityTimeout: number;
  readonly serverTimeout: number | null;
  readonly logger: Logger;
  /** Objects as their metadata only (`kube/watching/stream.ts`). */
  readonly metadataOnly?: boolean;
  /** For indexed resources: held until the first listing is over, and by objects seen until it opens. */
  readonly gate?: IndexReadiness;
  /** Only the objects with these labels (a ring's replica watches its share). */
  readonly labelSelector?: string;
  /** The operator's metrics, if kept: the streams' events, restarts and health. */
  readonly metrics?: OperatorMetrics;
}

/** Pumps the events of one namespace (or of the whole cluster) until `signal` is aborted. */
export async function pumpEvents(pump: Pump, namespace: string | null, signal: AbortSignal): Promise<void> {
  const served = pump.served;
  const listing = {}; // this stream's hold on the gate
  pump.gate?.hold(listing);
  const where = namespace === null ? 'cluster-wide' : `in '${namespace}'`;
  try {
    await pumpUntilStopped(pump, namespace, where, listing, signal);
  } finally {
    // Stopped for good: a namespace no longer served leaves no series behind.
    if (namespace !== null) pump.metrics?.unserved(resourceLabel(served.current()), namespace);
  }
}

async function pumpUntilStopped(
  pump: Pump, namespace: string | null, where: string, listing: object, signal: AbortSignal,
): Promise<void> {
  const { pauses, logger, served } = pump;
  while (!signal.aborted) {
    if (pauses.on) {
      const blockers = pauses.blockers().join(', ');
      logger.debug(`Pausing the watch-stream for ${watchName(served.current())} ${where} (blockers: ${blockers}).`);
      if (!(await pauses.wait(false, signal))) return;
      logger.debug(`Resuming the watch-stream for ${watchName(served.current())} ${where} (resolved: ${blockers}).`);
    }
    const untilPaused = pauses.untilOn(signal);
    try {
      await stream(pump, namespace, where, listing, untilPaused.signal);
    } finally {
      untilPaused.dispose();
    }
  }
}

async function stream(pump: Pump, namespace: string | null, where: string, listing: object, signal: AbortSignal) {
  const { served, logger, gate } = pump;
  const name = `${watchName(served.current())} ${where}`;
  const liveness = pump.freshness.track(name, pump.inactivityTimeout);
  const metrics = watchMetrics(pump, namespace, liveness.fresh);
  // Watched until told to stop; a stream that failed for good stays stale, as it is.
  signal.addEventListener('abort', () => { liveness.ended(); metrics?.ended(); }, { once: true });
  const options = {
    namespace, signal, serverTimeout: pump.serverTimeout ?? undefined, liveness, labelSelector: pump.labelSelector,
    metadataOnly: pump.metadataOnly,
    metrics,
    onUnsupported: (raw: unknown) => logger.warning(`Ignoring an unsupported event type: ${JSON.stringify(raw)}`),
    onStreamingRefused: (cause: unknown) => {
      const why = `the server does not stream it as a watch's events (${thrownText(cause)})`;
      logger.info(`Listing ${name} in pages from now on: ${why}.`);
    },
  };
  const what = (resource: ResourceDescriptor) => `The resource ${watchName(resource)} ${where}`;
  let streaming = false;
  let started = false;
  for await (const event of watchServed<KubeObject>(pump.client, served, options, logger, what)) {
    const listed = event.type === 'LISTED' || event.type === 'LISTED_DONE';
    // A listing after the stream has begun is a restart (410 Gone, or the resource served again).
    if (streaming && listed) logger.debug(`Restarting the watch-stream for ${watchName(served.current())} ${where}.`);
    if (event.type === 'LISTED') streaming = false;
    else if (event.type === 'LISTED_DONE') streaming = true;
    // Said once the first listing is over, not before it: whoever waits for the line to create an
    // object then sees it come as an event of the stream, which goes on from the listing's version.
    if (streaming && !started) logger.debug(`Starting the watch-stream for ${name}.`);
    started ||= streaming;
    if (event.type === 'LISTED_DONE') gate?.release(listing);
    // Listed objects are events of type `null`, as in Kopf; bookmarks and list ends carry no object.
    if (!('object' in event)) continue;
    const key = keyOf(event.object);
    if (gate && !gate.open) gate.hold(key); // released once the object is indexed
    pump.push(key, { kind: 'event', type: event.type === 'LISTED' ? null : event.type, object: event.object });
  }
  gate?.release(listing);
  logger.debug(`Stopping the watch-stream for ${watchName(served.current())} ${where}.`);
}

/**
 * The stream's instruments, and its health read by the metrics as the liveness endpoint judges it;
 * `ended` stops the reading. Bound to the resource where the stream starts.
 */
function watchMetrics(pump: Pump, namespace: string | null, fresh: () => boolean) {
  if (!pump.metrics) return undefined;
  const resource = resourceLabel(pump.served.current());
  const labels: Record<string, string> = namespace === null ? { resource } : { resource, namespace };
  const ended = pump.metrics.observe('watchHealthy', labels, () => fresh() ? 1 : 0);
  return { ...pump.metrics.watch(resource, namespace), ended };
}
