/**
 * One served resource's pipeline, assembled complete before its first event: the pumps of its
 * watch streams (`watching/pump.ts`), its queue of objects (`queueing/`), and the engines its
 * events go through — the processing (`processing/`), with the resource's timers and daemons
 * (`daemons/`) and the indexing (`indexing/`) it offers each event to.
 *
 *   watch stream → pump → queue → processEvent(processor) → writes
 *
 * Nothing of it is changed afterwards, but for one thing: when the resource is served elsewhere
 * (a name resolved again, `resolution.ts`), the processor is replaced by one for the new place.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { KubeClient, WatchFreshness } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { EventPoster } from '../posting/index.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import type { ToggleSet } from '../structs/toggles.ts';
import type { Memo } from '../registry/contexts.ts';
import type {
  ChangingHandler, EventHandler, IndexingHandler, ReconcileHandler, ResourceHandler, ResourceRef, SpawningHandler,
} from '../registry/handlers.ts';
import type { OperatorIndexers } from '../indices/indexers.ts';
import type { IndexReadiness } from '../indices/index-readiness.ts';
import type { Lifecycle } from '../handling/lifecycles.ts';
import { ObjectQueues, type Work } from '../queueing/workers.ts';
import { exitInstantly } from '../queueing/sleeping.ts';
import { pumpEvents, type Pump } from '../watching/pump.ts';
import type { ServedResource } from '../watching/served.ts';
import type { WatchTask } from '../watching/watchers.ts';
import { KeptFields } from '../actions/inconsistencies.ts';
import type { RawEvent, ResourceScope } from '../actions/scope.ts';
import { Memories } from '../processing/memories.ts';
import { processEvent, settledListing } from '../processing/processing.ts';
import { eventShelf, type ShelvedEvent } from '../processing/shelved-events.ts';
import type { ResourceProcessor } from '../processing/processor.ts';
import { Spawner } from '../daemons/spawning.ts';
import type { Pausing } from '../daemons/pausing.ts';
import { ResourceIndexing } from '../indexing/indexing.ts';
import { ResourceReconciler } from '../reconciling/reconciler.ts';
import { Relocation } from './resolution.ts';
import { RingShare, type Membership } from '../sharding/share.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import { resourceLabel } from '../observation/resource-names.ts';

/** What every pipeline of an operator shares: the operator's client, settings, loggers, and switches. */
export interface PipelineEnv {
  readonly client: KubeClient;
  readonly settings: OperatorSettings;
  readonly poster: EventPoster;
  /** The operator's logger: the streams' and the resolution's messages. */
  readonly logger: Logger;
  /** The objects' logger, which also posts their messages as events. */
  readonly objectsLogger: Logger;
  readonly memo: Memo;
  readonly lifecycle: Lifecycle;
  /** The operator is stopping: no new sleeps or wake-ups. */
  readonly stopping: AbortSignal;
  /** The operator has waited for the running cycles long enough: their handlers are cancelled. */
  readonly cancelled: AbortSignal;
  readonly indexers: OperatorIndexers;
  readonly readiness: IndexReadiness;
  readonly pauses: ToggleSet;
  readonly pausing: Pausing;
  readonly freshness: WatchFreshness;
  /** A member of a ring: only the objects assigned to this replica are watched and handled (`sharding/share.ts`). */
  readonly membership?: Membership;
  /** The operator's metrics, if kept. */
  readonly metrics?: OperatorMetrics;
}

/** A stream of the pipeline, and the scope it is served by: once, or per served namespace. */
export interface ServedWatch {
  readonly scope: ResourceDescriptor['scope'];
  readonly task: WatchTask;
}

/** A served resource's handlers, by what runs them. */
interface Handlers {
  readonly changing: ChangingHandler[];
  readonly watching: EventHandler[];
  readonly indexing: IndexingHandler[];
  readonly spawning: SpawningHandler[];
  readonly reconciling: ReconcileHandler | undefined;
}

export class ResourcePipeline {
  readonly queue: ObjectQueues<RawEvent, ShelvedEvent>;
  /** The resource's timers and daemons, if it has any. */
  readonly spawner: Spawner | undefined;
  /** A ring replica's share of the objects (`sharding/share.ts`), if the operator is one. */
  readonly share: RingShare | undefined;
  /** The resource's reconciler, if it has one. */
  readonly reconciler: ResourceReconciler | undefined;
  /**
   * The streams to serve: the resource's own, and its reconciler's related resources', each with
   * the scope it is served by (`watching/serving.ts`): per namespace only where both the resource
   * and the related one are namespaced, so that a cluster-scoped one is watched once.
   */
  readonly watches: readonly ServedWatch[];
  /** Replaced, never changed, when the resource is served elsewhere. */
  #processor: ResourceProcessor;

  constructor(env: PipelineEnv, ref: ResourceRef, resource: ResourceDescriptor, handlers: Handlers) {
    const { settings } = env;
    const workerLimit = settings.queueing.workerLimit;
    const handle = (key: string, pressure: AbortSignal) =>
      (event: RawEvent) => processEvent(this.#processor, key, event, pressure);
    const process = (key: string, work: Work<RawEvent>) => share
      ? share.process(key, work.event, handle(key, work.pressure))
      : handle(key, work.pressure)(work.event);
    const { metrics } = env;
    const label = resourceLabel(resource);
    const waited = metrics && ((seconds: number) => metrics.queueWait(resourceLabel(this.resource), seconds));
    const shelf = eventShelf(() => this.#processor);
    this.queue = new ObjectQueues(process, { workerLimit, waited, shelf, shelveAfter: settings.queueing.heldLimit });
    const scope: ResourceScope = {
      resource, client: env.client, settings, poster: env.poster, logger: env.objectsLogger, kept: new KeptFields(),
      cancelled: env.cancelled, indices: env.indexers.indices, metrics,
      enqueue: (key, request) => this.queue.enqueue(key, request),
    };
    const spawning = handlers.spawning, indexers = env.indexers;
    this.spawner = spawning.length ? new Spawner(spawning, this.#following(scope), env.pausing) : undefined;
    const indexing = indexers.empty ? undefined : new ResourceIndexing(handlers.indexing, indexers, env.readiness);
    this.reconciler = handlers.reconciling && new ResourceReconciler(handlers.reconciling, {
      scope: this.#following(scope), enqueue: scope.enqueue, stopping: env.stopping,
    });
    // The one owner of what is remembered of each object, and the engines that follow it.
    const memories = new Memories(() => env.memo, [this.spawner, this.reconciler, indexing]);
    this.#processor = {
      ...scope, changing: handlers.changing, watching: handlers.watching, lifecycle: env.lifecycle,
      memories, stopping: env.stopping, spawner: this.spawner, indexing, reconciling: this.reconciler,
    };
    const share = this.share = env.membership && new RingShare(env.membership, {
      client: env.client, resource: () => this.resource, release: memories, logger: env.objectsLogger,
      enqueue: scope.enqueue,
    });
    if (env.pauses.on) this.queue.pause();
    const patching = handlers.changing.length + handlers.spawning.length > 0 || Boolean(handlers.reconciling);
    const relocation = typeof ref === 'string' ? new Relocation(env.client, ref, patching, env.logger) : undefined;
    const served: ServedResource = {
      current: () => this.resource,
      relocate: relocation && ((was) => this.#relocate(relocation, was)),
    };
    const push = (key: string, event: RawEvent) => {
      // A ring replica's objects go through its share first, which may let them go or drain them.
      if (share) share.seen(key, event);
      // A listed object that needs nothing is not queued: at a restart with nothing changed, most are.
      else if (settledListing(this.#processor, key, event)) return;
      this.#push(key, event);
    };
    const pump: Pump = {
      client: env.client, served, push, pauses: env.pauses, labelSelector: share?.selector,
      freshness: env.freshness, inactivityTimeout: settings.watching.inactivityTimeout,
      serverTimeout: settings.watching.serverTimeout, logger: env.logger,
      gate: handlers.indexing.length ? env.readiness : undefined, metrics,
    };
    const related = this.reconciler ? relatedPumps(pump, this.reconciler) : [];
    this.watches = [pump, ...related].map((each) => ({
      scope: resource.scope === 'Cluster' ? 'Cluster' : each.served.current().scope,
      task: (namespace, signal) => pumpEvents(each, namespace, signal),
    }));
    if (metrics) this.#observe(metrics, label);
  }

  /** A watch event into the queue; its version noted first, should it be the echo of our last write. */
  #push(key: string, event: RawEvent): void {
    this.#processor.memories.passing(key, event.object.metadata?.resourceVersion);
    this.queue.enqueue(key, event);
  }

  /** The queue's and the daemons' gauges, read when the metrics are scraped. */
  #observe(metrics: OperatorMetrics, resource: string): void {
    metrics.observe('queueDepth', { resource }, () => this.queue.waiting);
    metrics.observe('objectsInProgress', { resource }, () => this.queue.processing);
    const spawner = this.spawner;
    if (spawner) metrics.observe('daemonsRunning', { resource }, () => spawner.daemonsRunning);
  }

  /** Where the resource is served now. */
  get resource(): ResourceDescriptor {
    return this.#processor.resource;
  }

  /** Whether the resource is served elsewhere now: found, or followed by another stream before. */
  async #relocate(relocation: Relocation, was: ResourceDescriptor): Promise<boolean> {
    if (this.resource !== was) return true;
    const found = await relocation.find(was, () => this.resource !== was);
    if (this.resource !== was) return true;
    if (!found) return false;
    this.#processor = { ...this.#processor, resource: found, kept: new KeptFields() }; // another schema
    this.#processor.metrics?.unserved(resourceLabel(was)); // no series of a version no longer served
    return true;
  }

  /**
   * The scope of the timers and daemons: they outlive a relocation, and write where the resource
   * is served now, with what its merge-patches were seen to keep there.
   */
  #following(scope: ResourceScope): ResourceScope {
    const current = (): ResourceProcessor => this.#processor;
    return {
      ...scope,
      get resource() { return current().resource; },
      get kept() { return current().kept; },
    };
  }
}

/**
 * The streams of a reconciler's related resources, beside the resource's own in each namespace:
 * their events go to the reconciler's mapping, as requests for the objects they concern. In a ring,
 * the owned ones select the replica's label as its own stream does: a child carries its owner's
 * member (`sharding/children.ts`), so each replica watches its own owners' children only. The
 * watched ones are not selected: a `map` may name any object from any of them.
 */
function relatedPumps(own: Pump, reconciler: ResourceReconciler): Pump[] {
  const { owns, watches } = reconciler.handler;
  return [...owns, ...watches].map((related): Pump => {
    return {
      ...own, gate: undefined, served: { current: () => related.resource }, metadataOnly: related.metadataOnly,
      labelSelector: owns.includes(related) ? own.labelSelector : undefined,
      push: (_key, event) => reconciler.related(related, event.object, event.type),
    };
  });
}

/** Sorts a served resource's own handlers by what runs them. */
export function handlersOf(own: readonly ResourceHandler[]): Handlers {
  return {
    changing: own.filter((h): h is ChangingHandler => h.kind === 'changing'),
    watching: own.filter((h): h is EventHandler => h.kind === 'event'),
    indexing: own.filter((h): h is IndexingHandler => h.kind === 'index'),
    spawning: own.filter((h): h is SpawningHandler => h.kind === 'timer' || h.kind === 'daemon'),
    reconciling: own.find((h): h is ReconcileHandler => h.kind === 'reconcile'),
  };
}

/**
 * Stops the pipelines: their timers and daemons at once, and their running cycles within the exit
 * timeout; then cancels the handlers still running (`cancel`) and gives them as long as Kopf gives
 * a stopped daemon to exit at once. Returns the keys of the objects still being handled.
 */
export async function stopPipelines(
  pipelines: readonly ResourcePipeline[], settings: OperatorSettings, cancel: () => void, logger: Logger,
): Promise<string[]> {
  const queues = pipelines.map((pipeline) => pipeline.queue);
  const stopping = stopQueues(queues, settings, cancel, logger);
  const [abandoned] = await Promise.all([stopping, ...pipelines.map((pipeline) => pipeline.spawner?.stopAll())]);
  return abandoned;
}

async function stopQueues(
  queues: readonly ObjectQueues<RawEvent, ShelvedEvent>[], settings: OperatorSettings, cancel: () => void,
  logger: Logger,
): Promise<string[]> {
  const running = (await Promise.all(queues.map((queue) => queue.stop(settings.queueing.exitTimeout)))).flat();
  if (!running.length) return running;
  logger.debug(`Cancelling the handlers of ${running.length} object(s) still being handled.`);
  cancel();
  const settling = queues.map((queue) => queue.settle((cycles) => exitInstantly(cycles, settings.background)));
  return (await Promise.all(settling)).flat();
}
