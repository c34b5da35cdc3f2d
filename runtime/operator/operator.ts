/**
 * The operator: one object that owns everything a running operator has — settings, client,
 * loggers, watchers, queues, memories — so several can run in one process without sharing state.
 * A run goes through named phases, as Kopf's `kopf/_core/reactor/running.py` spawns its tasks:
 *
 *   start up (startup activities) → connect → liveness → posting → admission → coordination
 *   (peering, leader election, a ring's replica: `coordination.ts`) → resources (a pipeline each,
 *   `pipeline/`) → namespaces → ready …
 *   stopped → shut down (streams, pipelines, coordination, posting, cleanup activities) → done.
 */
import { defaultSettings } from '../config/defaults.ts';
import type { OperatorSettings } from '../config/settings.ts';
import { validateSettings } from '../config/validation.ts';
import { LogConfig, Logger } from '../logging/index.ts';
import { KubeClient, ResourceClient, WatchFreshness } from '../kube/index.ts';
import { ToggleSet } from '../structs/toggles.ts';
import { aborted } from '../structs/aborts.ts';
import { describe, getDefaultRegistry, sameResource, type OperatorRegistry } from '../registry/registry.ts';
import { watchName } from '../watching/served.ts';
import type { RingAssigner } from '../sharding/assigner.ts';
import type { ActivityHandler, ResourceRef } from '../registry/handlers.ts';
import type { Memo } from '../registry/contexts.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import { OperatorIndexers } from '../indices/indexers.ts';
import { IndexReadiness } from '../indices/index-readiness.ts';
import { asap } from '../handling/lifecycles.ts';
import { EventPoster, loggingTap, postEventVia } from '../posting/index.ts';
import { WatcherSet } from '../watching/watchers.ts';
import { observeNamespaces } from '../watching/observation.ts';
import { isGlob } from '../watching/namespaces.ts';
import { Serving } from '../watching/serving.ts';
import { serveWhenCreated } from '../watching/crds.ts';
import { runActivity, type ActivityEnv } from '../activities/activities.ts';
import { cleanUp } from '../activities/cleanup-handlers.ts';
import type { Endpoints } from '../servers/endpoints.ts';
import type { PrometheusMetrics } from '../metrics/prometheus.ts';
import { Pausing } from '../daemons/pausing.ts';
import { detectOwnIdentity } from '../peering/identity.ts';
import { startAdmission, type Admission } from '../webhooks/admission-serving.ts';
import { ResourcePipeline, handlersOf, stopPipelines, type PipelineEnv } from '../pipeline/pipeline.ts';
import { resolveResources, servable } from '../pipeline/resolution.ts';
import { newClient } from './client.ts';
import { Coordination, followPauses } from './coordination.ts';
import { loadMetrics, serveEndpoints } from './served-endpoints.ts';
import { applyPeeringOptions, type OperatorOptions } from './options.ts';
import { runInClock } from '../structs/clock.ts';

export type { OperatorOptions } from './options.ts';

/**
 * The reason to abort an operator's `signal` with when the application has said why it stops (as
 * `kopf run` says "Signal SIGTERM is received. Operator is stopping."): the operator does not add
 * Kopf's "Stop-flag is raised." then.
 */
export const STOP_ANNOUNCED: unique symbol = Symbol('kopf.stop-announced');

/** What a run has started, each set once it is: the shutdown stops what there is. */
interface Started {
  readonly pipelines: ResourcePipeline[];
  /** Peering, the election and a ring's replica: they outlive the processing (`coordination.ts`). */
  readonly coordination: Coordination;
  /** Stops following the pauses (`followPauses`). */
  readonly unpausing: () => void;
  /** The client made by the operator (not one it was given): closed at the end. */
  ownClient?: KubeClient;
  poster?: EventPoster;
  admission?: Admission;
}

export class Operator {
  /** Resolves when startup handlers succeeded and watching has begun; rejects if startup failed. */
  readonly ready: Promise<void>;
  /** Resolves when the operator has stopped and cleaned up; rejects with what stopped it, if fatal. */
  readonly done: Promise<void>;
  readonly settings: OperatorSettings;
  readonly logger: Logger;
  /** This operator's name among its peers. */
  readonly identity: string;
  /**
   * Why the operator is paused, if it is: a toggle per reason (a peer that outranks it in a peering
   * object, a missing peering CRD). While any is on, no watch stream runs and no cycle starts.
   */
  readonly pauses = new ToggleSet();
  /** Stops this operator's timers and daemons while `pauses` is on (peering), and respawns them after. */
  readonly pausing = new Pausing();

  private readonly stopper = new AbortController();
  /** Cancels the handlers still running when the stop has waited `queueing.exitTimeout` for them. */
  private readonly canceller = new AbortController();
  private readonly registry: OperatorRegistry;
  private readonly memo: Memo;
  /** The indexes (`on.index`), and the gate that holds the handlers until they are complete. */
  private readonly indexers: OperatorIndexers;
  private readonly readiness = new IndexReadiness();
  private readyResolve!: () => void;
  private readyReject!: (error: unknown) => void;
  private readonly options: OperatorOptions;
  /** When each watch stream last heard from the server, for the liveness endpoint. */
  private readonly freshness = new WatchFreshness();
  private readonly operatorLogger: Logger;
  private running = false;
  /** The liveness endpoint and the metrics, once served. */
  private endpoints: Endpoints | undefined;
  /** The metrics the runtime reports to; absent unless asked for (`options.metrics`). */
  private metrics: PrometheusMetrics | undefined;

  constructor(options: OperatorOptions = {}) {
    this.options = options;
    this.registry = options.registry ?? getDefaultRegistry();
    this.settings = options.settings ?? defaultSettings();
    applyPeeringOptions(this.settings, options);
    this.identity = options.identity ?? detectOwnIdentity();
    this.memo = options.memo ?? {};
    const indexIds = this.registry.resourceHandlers.filter((h) => h.kind === 'index').map((h) => h.id);
    this.indexers = new OperatorIndexers(indexIds);
    this.logger = new Logger(options.logs ?? new LogConfig(), 'kopf');
    this.operatorLogger = this.logger.child('kopf.operator');
    const external = options.signal;
    const announced = () => this.requestStop(external?.reason !== STOP_ANNOUNCED);
    external?.addEventListener('abort', announced, { once: true });
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.ready.catch(() => undefined); // observed through `done` as well
    // Everything the run starts reads the handlers' time from the clock given, if one is.
    this.done = options.clock ? runInClock(options.clock, () => this.run()) : this.run();
  }

  /** The liveness endpoint's URL once it is served (with the actual port if 0 was asked for). */
  get livenessUrl(): string | undefined {
    return this.options.liveness === undefined ? undefined : this.endpoints?.url(this.options.liveness);
  }

  /** The metrics endpoint's URL once it is served (with the actual port if 0 was asked for). */
  get metricsUrl(): string | undefined {
    return this.options.metrics === undefined ? undefined : this.endpoints?.url(this.options.metrics);
  }

  /** Whether the operator is paused now (by peering). */
  get paused(): boolean { return this.pauses.on; }

  /** Stops gracefully; resolves when everything has stopped. */
  async stop(): Promise<void> {
    this.requestStop(true);
    await this.done.catch(() => undefined);
  }

  /** The embedding application stops the operator (Kopf's stop-flag); said once, as Kopf says it. */
  private requestStop(announce: boolean): void {
    if (this.stopper.signal.aborted) return;
    if (announce) this.operatorLogger.info('Stop-flag is raised. Operator is stopping.');
    this.stopper.abort();
  }

  private async run(): Promise<void> {
    this.metrics = await loadMetrics(this.options.metrics, this.pauses)
      .catch((error: unknown) => { this.readyReject(error); throw error; });
    const pipelines: ResourcePipeline[] = [];
    const unpausing = followPauses(this.pauses, this.pausing, pipelines);
    const started: Started = { pipelines, coordination: new Coordination(), unpausing };
    const serving = new Serving(this.options.clusterwide || !this.options.namespaces?.length);
    const { env, connect } = this.activities(started);
    const stopped = aborted(this.stopper.signal);
    try {
      if (!(await this.startUp(env))) return;
      const client = connect();
      const { freshness } = this;
      const liveness = { probes: this.activityHandlers('probe'), running: () => this.running, freshness };
      this.endpoints = await serveEndpoints(this.options, liveness, this.metrics, env, this.logger);
      // Events about cluster-scoped objects go to the credentials' namespace, else `default` (as in Kopf).
      const credentialsNamespace = await client.credentialsNamespace();
      const pipelineEnv = this.startPosting(client, credentialsNamespace, started);
      const admission = this.admit(client, pipelineEnv.poster, started);
      await this.coordinate(client, credentialsNamespace, started);
      if (this.stoppedWhileStarting()) return;
      // Until the streams of the indexed resources have started, no handler may run: they hold the gate then.
      this.readiness.hold(this);
      const { coordination } = started;
      const { late } = await this.serveResources(coordination.withMembership(pipelineEnv), serving, started);
      const observer = this.serveNamespaces(client, serving, coordination).then(() => stopped);
      this.readiness.release(this);
      await admission.ready;
      this.readyResolve();
      this.running = true;
      const admitting = admission.done.then(() => stopped);
      await Promise.race([observer, serving.failed, late.then(() => stopped), admitting, stopped]);
    } catch (error) {
      this.readyReject(error);
      throw error;
    } finally {
      await this.shutDown(started, serving, env);
    }
  }

  /**
   * The activities' environment. Its client connects when first needed: by a startup handler's
   * call, or else after the startup handlers, which may change the networking settings.
   */
  private activities(started: Started): { env: ActivityEnv; connect: () => KubeClient } {
    let connected: KubeClient | undefined;
    const logins = this.registry.activityHandlers.filter((h) => h.activity === 'authentication');
    const own = () => started.ownClient =
      newClient(this.settings, this.logger, logins, env, this.options.kubeconfig, this.metrics);
    const connect = (): KubeClient => connected ??= this.options.client ?? own();
    const env: ActivityEnv = {
      settings: this.settings, logger: this.logger, memo: this.memo, signal: this.stopper.signal,
      indices: this.indexers.indices, client: new ResourceClient(connect), metrics: this.metrics,
    };
    return { env, connect };
  }

  /** Runs the startup handlers; false if the operator was stopped meanwhile. */
  private async startUp(env: ActivityEnv): Promise<boolean> {
    await runActivity(this.activityHandlers('startup'), 'startup', env);
    if (this.stoppedWhileStarting()) return false; // before the first request, which might only retry
    validateSettings(this.settings); // startup handlers may have changed them
    return true;
  }

  /** Stopped while starting (a startup handler waiting for ever, a server that does not answer): never ready. */
  private stoppedWhileStarting(): boolean {
    if (!this.stopper.signal.aborted) return false;
    this.readyReject(new Error('The operator was stopped while it was starting.'));
    return true;
  }

  /**
   * Kubernetes events about the objects; the objects' logger posts its messages as events too.
   * Returns what the resources' pipelines share, the poster and that logger among it.
   */
  private startPosting(client: KubeClient, defaultNamespace: string | undefined, started: Started): PipelineEnv {
    const logger = this.logger.child('kopf.posting');
    const settings = this.settings;
    const poster = started.poster = new EventPoster({ post: postEventVia(client), settings, logger, defaultNamespace });
    return {
      client, settings, poster, logger: this.operatorLogger, objectsLogger: this.logger.withTaps(loggingTap(poster)),
      memo: this.memo, lifecycle: this.options.lifecycle ?? asap, stopping: this.stopper.signal,
      cancelled: this.canceller.signal, indexers: this.indexers, readiness: this.readiness, pauses: this.pauses,
      pausing: this.pausing, freshness: this.freshness, metrics: this.metrics,
    };
  }

  /** The admission webhooks and the conversion webhook, if there are admission handlers or converters. */
  private admit(client: KubeClient, poster: EventPoster, started: Started): Admission {
    const { conversionHandlers: conversions } = this.registry;
    const admission = started.admission = startAdmission({
      handlers: this.registry.webhookHandlers, conversions, settings: this.settings, client, poster,
      logger: this.logger.child('kopf.admission'), memo: this.memo, signal: this.stopper.signal,
      cancelled: this.canceller.signal, indices: this.indexers.indices, metrics: this.metrics,
    });
    if (!this.registry.resourceHandlers.length && !this.registry.webhookHandlers.length && !conversions.length) {
      this.operatorLogger.warning('No resource handlers are registered: there is nothing to serve.');
    }
    return admission;
  }

  /** Peering, the leader election and a ring's replica: each pauses the operator while another should serve. */
  private coordinate(client: KubeClient, credentialsNamespace: string | undefined, started: Started): Promise<void> {
    // A ring's replica that has lost its membership lets go of every object of every resource.
    const lost = () => { for (const { share } of started.pipelines) void share?.releaseAll(); };
    return started.coordination.start({
      client, settings: this.settings, identity: this.identity, pauses: this.pauses, logger: this.logger,
      credentialsNamespace, stop: this.stopper.signal, lost, metrics: this.metrics,
    });
  }

  /**
   * Serves the resources that can be served now, a pipeline each, and those not served yet once
   * they are (`late`: ends when none is left waiting).
   */
  private async serveResources(
    env: PipelineEnv, serving: Serving, started: Started,
  ): Promise<{ late: Promise<void> }> {
    const logger = this.operatorLogger;
    const followed = new Set<string>(); // the owned resources whose children the assigner follows, once each
    const serve = (ref: ResourceRef, resource: ResourceDescriptor) => {
      const handlers = handlersOf(this.registry.resourceHandlers.filter((h) => sameResource(h.resource, ref)));
      if (!servable(ref, resource, handlers.changing.length + handlers.spawning.length > 0, logger)) return;
      const pipeline = new ResourcePipeline(env, ref, resource, handlers);
      started.pipelines.push(pipeline);
      for (const { scope, task } of pipeline.watches) serving.add({ scope }, new WatcherSet(task, this.stopper.signal));
      // The assigner's watch of the objects, in the same namespaces: it works only while elected.
      const assigner = started.coordination.assigner;
      if (!assigner) return;
      serving.add(resource, new WatcherSet(assigner.watcher(resource), this.stopper.signal));
      for (const { resource: owned } of handlers.reconciling?.owns ?? []) {
        if (followed.has(watchName(owned))) continue;
        followed.add(watchName(owned));
        this.followChildren(assigner, resource, owned, serving);
      }
    };
    const unresolved = await resolveResources(env.client, this.registry.resources(), serve, logger);
    const late = serveWhenCreated(env.client, unresolved, (name, resource, because) => {
      const why = because === 'created' ? 'its CRD was created' : 'discovery lists it';
      logger.info(`The resource ${describe(name)} is served now: ${why}.`);
      serve(name, resource);
    }, this.stopper.signal, logger);
    return { late };
  }

  /**
   * The assigner's watch of a reconciler's owned children, in the namespaces of their owners: they
   * follow their owners' members. Those of a resource the operator serves are placed as objects.
   */
  private followChildren(
    assigner: RingAssigner, owner: ResourceDescriptor, owned: ResourceDescriptor, serving: Serving,
  ): void {
    if (this.registry.resources().some((ref) => sameResource(ref, owned))) return;
    const scope = owner.scope === 'Cluster' ? 'Cluster' : owned.scope;
    serving.add({ scope }, new WatcherSet(assigner.childrenWatcher(owned), this.stopper.signal));
  }

  /**
   * Serves the namespaces: the given ones, or for glob patterns those that match, as they come
   * and go. Returns at once for fixed namespaces.
   */
  private async serveNamespaces(client: KubeClient, serving: Serving, coordination: Coordination): Promise<void> {
    const patterns = this.options.namespaces ?? [];
    if (this.options.clusterwide || !patterns.length) return;
    const added = (namespace: string) => { coordination.addNamespace(namespace); serving.addNamespace(namespace); };
    if (!patterns.some(isGlob)) {
      for (const namespace of patterns) added(namespace);
      return;
    }
    const removed = (namespace: string) => {
      void serving.removeNamespace(namespace);
      void coordination.removeNamespace(namespace);
    };
    await observeNamespaces(client, patterns, { added, removed }, this.stopper.signal, this.operatorLogger);
  }

  /**
   * Stops what the run has started, in order: the streams; the pipelines (their timers and daemons
   * at once, their cycles within the exit timeout); peering and the election; admission and the
   * posting; then the cleanup handlers, the liveness endpoint and the client.
   */
  private async shutDown(started: Started, serving: Serving, env: ActivityEnv): Promise<void> {
    const logger = this.operatorLogger;
    this.running = false;
    this.stopper.abort();
    await serving.settled();
    const cancelled = new DOMException('The operator is stopping: its handlers are cancelled.', 'AbortError');
    const cancel = () => this.canceller.abort(cancelled);
    const abandoned = await stopPipelines(started.pipelines, this.settings, cancel, logger);
    await started.coordination.stop();
    started.unpausing();
    if (abandoned.length) {
      const timeout = this.settings.queueing.exitTimeout;
      logger.warning(`${abandoned.length} object(s) were still being handled ${timeout} s after the stop began, `
        + 'and did not end when cancelled: they are left as they are, and their handlers run again when the objects '
        + 'are next processed.');
    }
    await started.admission?.done.catch(() => undefined); // its failure, if any, is what stopped the operator
    await started.poster?.close();
    await cleanUp(this.activityHandlers('cleanup'), { ...env, indices: this.indexers.indices });
    await this.endpoints?.close();
    this.metrics?.close();
    started.ownClient?.close();
  }

  private activityHandlers(activity: ActivityHandler['activity']): ActivityHandler[] {
    return this.registry.activityHandlers.filter((h) => h.activity === activity);
  }
}

/** Starts an operator; `await op.ready`, then `await op.stop()` (or abort `signal`). */
export function operator(options: OperatorOptions = {}): Operator {
  return new Operator(options);
}
