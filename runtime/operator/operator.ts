/**
 * The operator: one object that owns everything a running operator has — settings, client,
 * loggers, watchers, queues, memories — so several can run in one process without sharing state.
 *
 *   startup activities → ready → resolve resources → one watcher per resource and namespace →
 *   per-object queues → processing … stop → drain → cleanup activities → done.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { defaultSettings } from '../config/defaults.ts';
import type { OperatorSettings } from '../config/settings.ts';
import { validateSettings } from '../config/validation.ts';
import { LogConfig, Logger } from '../logging/index.ts';
import { ApiError, KubeClient, ResourceClient, UnresolvedResourceError, keyOf, missingVerbs, resolveResource, type KubeClientOptions, type RequestTrace, type RetryNotice } from '../kube/index.ts';
import { WatchFreshness } from '../kube/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { describe, getDefaultRegistry, sameResource, type OperatorRegistry } from '../registry/registry.ts';
import type { ResourceRef } from '../registry/handlers.ts';
import type { ActivityHandler, ChangingHandler, EventHandler, SpawningHandler } from '../registry/handlers.ts';
import type { IndexingHandler } from '../registry/handlers.ts';
import { OperatorIndexers } from '../indices/indexers.ts';
import { ResourceIndexing } from '../indexing/indexing.ts';
import { IndexReadiness } from '../indices/readiness.ts';
import type { Memo } from '../registry/contexts.ts';
import { asap, type Lifecycle } from '../handling/lifecycles.ts';
import { runActivity, type ActivityEnv } from '../activities/activities.ts';
import { loginVault } from '../activities/authentication.ts';
import { LivenessEndpoint } from '../activities/probing.ts';
import { ObjectQueues } from '../queueing/workers.ts';
import { exitInstantly } from '../queueing/sleeping.ts';
import { Memories } from '../processing/memories.ts';
import { KeptFields } from '../actions/inconsistencies.ts';
import { processEvent } from '../processing/processing.ts';
import type { ResourceProcessor } from '../processing/processor.ts';
import type { RawEvent } from '../actions/scope.ts';
import { EventPoster, loggingTap, postEventVia } from '../posting/index.ts';
import { WatcherSet } from '../watching/watchers.ts';
import { observeNamespaces } from '../watching/observation.ts';
import { watchServed, type ServedResource } from '../watching/served.ts';
import { isGlob } from '../watching/namespaces.ts';
import { Serving } from '../watching/serving.ts';
import { serveWhenCreated } from '../watching/crds.ts';
import { Spawner } from '../daemons/spawning.ts';
import { Pausing } from '../daemons/pausing.ts';
import { ToggleSet } from '../structs/toggles.ts';
import { Peering } from '../peering/peering.ts';
import { detectOwnIdentity } from '../peering/identity.ts';
import { LeaderElection } from '../peering/leases.ts';
import { startAdmission } from '../webhooks/serving.ts';

export interface OperatorOptions {
  registry?: OperatorRegistry;
  settings?: OperatorSettings;
  /** Credentials; the default loading rules (KUBECONFIG, ~/.kube/config, in-cluster) when absent. */
  kubeconfig?: KubeConfig;
  client?: KubeClient;
  /** Namespaces to serve; cluster-wide when empty and `clusterwide` is set. */
  namespaces?: readonly string[];
  clusterwide?: boolean;
  /** No peering with other operators (`settings.peering.standalone`). */
  standalone?: boolean;
  /** This operator's priority among its peers (`settings.peering.priority`). */
  priority?: number;
  /** The peering object's name; makes peering mandatory (`settings.peering.name` and `mandatory`). */
  peering?: string;
  /** This operator's name among its peers; `POD_ID`, else `user@host/started/xyz`. */
  identity?: string;
  /** Elect a leader among replicas on the Lease of this name (`settings.leaderElection.name`). */
  leaderElection?: string;
  logs?: LogConfig;
  memo?: Memo;
  lifecycle?: Lifecycle;
  /**
   * Serve the liveness endpoint here: `http://HOST:PORT/PATH` (port 0 for any free one; see
   * `livenessUrl`). It answers with the probe handlers' results, or an error status when the
   * operator is not running or a watch has been silent past its inactivity timeout.
   */
  liveness?: string;
  /** Aborting it stops the operator gracefully. */
  signal?: AbortSignal;
}

/**
 * The reason to abort an operator's `signal` with when the application has said why it stops (as
 * `kopf run` says "Signal SIGTERM is received. Operator is stopping."): the operator does not add
 * Kopf's "Stop-flag is raised." then.
 */
export const STOP_ANNOUNCED: unique symbol = Symbol('kopf.stop-announced');

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
  /**
   * Stops and respawns this operator's timers and daemons: paused while `pauses` is on (peering),
   * with the reason 'operator pausing' (see docs/architecture.md).
   */
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
  private running = false;
  private endpoint: LivenessEndpoint | undefined;

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
    const external = options.signal;
    if (external) external.addEventListener('abort', () => this.requestStop(external.reason !== STOP_ANNOUNCED), { once: true });
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.ready.catch(() => undefined); // observed through `done` as well
    this.done = this.run();
  }

  /** The liveness endpoint's URL once it is served (with the actual port if 0 was asked for). */
  get livenessUrl(): string | undefined {
    return this.endpoint?.url;
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
    if (announce) this.logger.child('kopf.operator').info('Stop-flag is raised. Operator is stopping.');
    this.stopper.abort();
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    const logger = this.logger.child('kopf.operator');
    const startups = this.registry.activityHandlers.filter((h) => h.activity === 'startup');
    const cleanups = this.registry.activityHandlers.filter((h) => h.activity === 'cleanup');
    let poster: EventPoster | undefined;
    let ownClient: KubeClient | undefined;
    let peering: Peering | undefined;
    let election: LeaderElection | undefined;
    // Peering and the election outlive the processing: a replica that lets others take over must
    // have stopped its own work first.
    const coordination = new AbortController();
    // A pause (peering) holds the queues and stops the timers and daemons; its end resumes both.
    const unpausing = this.pauses.subscribe((on) => {
      for (const queue of queues) if (on) queue.pause(); else queue.resume();
      if (on) void this.pausing.pause();
      else this.pausing.resume();
    });
    if (this.pauses.on) void this.pausing.pause();
    const serving = new Serving(this.options.clusterwide || !this.options.namespaces?.length);
    const queues: ObjectQueues<RawEvent>[] = [];
    const spawners: Spawner[] = [];
    let admissionDone: Promise<void> | undefined;
    // Connected when first needed: by a startup handler's call, or else after the startup handlers,
    // which may change the networking settings.
    let connected: KubeClient | undefined;
    const connect = (): KubeClient => connected ??= this.options.client ?? (ownClient = this.makeClient(activityEnv));
    const activityEnv = {
      settings: this.settings, logger: this.logger, memo: this.memo, signal, indices: this.indexers.indices,
      client: new ResourceClient(connect),
    };
    try {
      await runActivity(startups, 'startup', activityEnv);
      // Stopped while starting (say, a startup handler waited for something that never came): the
      // stop ends here, before the first request, which might only retry against an absent server.
      if (signal.aborted) {
        this.readyReject(new Error('The operator was stopped while it was starting.'));
        return;
      }
      validateSettings(this.settings); // startup handlers may have changed them
      const client = connect();
      if (this.options.liveness) this.endpoint = await this.serveLiveness(this.options.liveness, activityEnv);
      // Events about cluster-scoped objects go to the credentials' namespace, else `default` (as in Kopf).
      const defaultNamespace = await client.credentialsNamespace();
      const eventPoster = poster = new EventPoster({ post: postEventVia(client), settings: this.settings, logger: this.logger.child('kopf.posting'), defaultNamespace });
      const objectsLogger = this.logger.withTaps(loggingTap(eventPoster));
      const admission = startAdmission({
        handlers: this.registry.webhookHandlers, settings: this.settings, client, poster: eventPoster,
        logger: this.logger.child('kopf.admission'), memo: this.memo, signal, cancelled: this.canceller.signal,
        indices: this.indexers.indices,
      });
      admissionDone = admission.done;
      if (!this.registry.resourceHandlers.length && !this.registry.webhookHandlers.length) {
        logger.warning('No resource handlers are registered: there is nothing to serve.');
      }
      if (!this.settings.peering.standalone) {
        const peeringLogger = this.logger.child('kopf.peering');
        peering = new Peering({
          client, settings: this.settings.peering, identity: this.identity, paused: this.pauses, logger: peeringLogger,
          signal: coordination.signal,
        });
        await peering.ready; // nothing is processed before peering has had its say
      }
      election = this.elect(client, defaultNamespace);
      const serve = (ref: ResourceRef, resource: ResourceDescriptor) => {
        const own = this.registry.resourceHandlers.filter((h) => sameResource(h.resource, ref));
        const changing = own.filter((h): h is ChangingHandler => h.kind === 'changing');
        const watching = own.filter((h): h is EventHandler => h.kind === 'event');
        const indexing = own.filter((h): h is IndexingHandler => h.kind === 'index');
        const spawning = own.filter((h): h is SpawningHandler => h.kind === 'timer' || h.kind === 'daemon');
        if (!servable(ref, resource, changing.length + spawning.length > 0, logger)) return;
        const { queue, proc } = this.makeQueue(client, resource, changing, watching, eventPoster, objectsLogger, signal);
        if (!this.indexers.empty) proc.indexing = new ResourceIndexing(indexing, this.indexers, this.readiness);
        const gate = indexing.length ? this.readiness : undefined;
        queues.push(queue);
        if (spawning.length) spawners.push(proc.spawner = new Spawner(spawning, proc, this.pausing));
        if (this.pauses.on) queue.pause();
        const served: ServedResource = {
          current: () => proc.resource,
          relocate: typeof ref === 'string' ? relocator(client, ref, proc, changing.length > 0, logger) : undefined,
        };
        const watch = (namespace: string | null, stop: AbortSignal) =>
          this.watch(client, served, namespace, queue, stop, logger, gate);
        serving.add(resource, new WatcherSet(watch, signal));
      };
      // Until the streams of the indexed resources have started, no handler may run: they hold the gate then.
      this.readiness.hold(this);
      const unresolved = await this.serveResources(client, serve, logger);
      const late = serveWhenCreated(client, unresolved, (name, resource, because) => {
        logger.info(`The resource ${describe(name)} is served now: ${because === 'created' ? 'its CRD was created' : 'discovery lists it'}.`);
        serve(name, resource);
      }, signal, logger);
      // Observation returns at once for fixed namespaces; either way, the operator runs until stopped.
      const observer = this.serveNamespaces(client, serving, peering, signal, logger).then(() => aborted(signal));
      this.readiness.release(this);
      await admission.ready;
      this.readyResolve();
      this.running = true;
      const admitting = admission.done.then(() => aborted(signal));
      await Promise.race([observer, serving.failed, late.then(() => aborted(signal)), admitting, aborted(signal)]);
    } catch (error) {
      this.readyReject(error);
      throw error;
    } finally {
      this.running = false;
      this.stopper.abort();
      await serving.settled();
      // Timers and daemons are told to stop at once, while the running cycles get their exit timeout.
      const [abandoned] = await Promise.all([this.stopQueues(queues, logger), ...spawners.map((spawner) => spawner.stopAll())]);
      coordination.abort();
      await Promise.all([peering?.settled(), election?.stop()]);
      unpausing();
      if (abandoned.length) logger.warning(`${abandoned.length} object(s) were still being handled ${this.settings.queueing.exitTimeout} s after the stop began, and did not end when cancelled: they are left as they are, and their handlers run again when the objects are next processed.`);
      await admissionDone?.catch(() => undefined); // its failure, if any, is what stopped the operator
      await poster?.close();
      await this.cleanUp(cleanups, activityEnv.client, logger);
      await this.endpoint?.close();
      ownClient?.close();
    }
  }

  /** Starts the leader election if asked for: until this replica holds the Lease, it is paused. */
  private elect(client: KubeClient, credentialsNamespace: string | undefined): LeaderElection | undefined {
    const settings = this.settings.leaderElection;
    if (settings.name === null) return undefined;
    const namespace = settings.namespace ?? process.env.POD_NAMESPACE ?? credentialsNamespace ?? 'default';
    const logger = this.logger.child('kopf.leadership');
    const election = new LeaderElection({
      client, settings: { ...settings, name: settings.name }, namespace, identity: this.identity, paused: this.pauses, logger,
    });
    election.start();
    return election;
  }

  /**
   * The API client: with the credentials of the login handlers if there are any (Kopf's
   * `on.login`), else of the given kubeconfig, else of the default one.
   */
  private makeClient(env: ActivityEnv): KubeClient {
    const options = clientOptions(this.settings, this.logger);
    const logins = this.registry.activityHandlers.filter((h) => h.activity === 'authentication');
    if (logins.length) return new KubeClient(loginVault(logins, env), options);
    const { kubeconfig } = this.options;
    return kubeconfig ? KubeClient.fromKubeConfig(kubeconfig, options) : KubeClient.fromDefault(options);
  }

  /** The liveness endpoint: the probes' results while the operator runs and its watches are fresh. */
  private serveLiveness(url: string, env: ActivityEnv): Promise<LivenessEndpoint> {
    const probes = this.registry.activityHandlers.filter((h) => h.activity === 'probe');
    return LivenessEndpoint.start(url, {
      probe: () => runActivity(probes, 'probe', env),
      problem: () => {
        if (!this.running) return 'The operator is not running.';
        const stale = this.freshness.stale().map((s) => `${s.name} (${s.overdue.toFixed(1)} s overdue)`);
        return stale.length ? `Watch-streams silent past their inactivity timeout: ${stale.join(', ')}.` : null;
      },
    }, this.logger.child('kopf.activities.probe'));
  }

  /**
   * Gives the running cycles the exit timeout to end; then cancels their handlers and gives them
   * as long as Kopf gives a stopped daemon to exit at once. Returns the keys of those still running.
   */
  private async stopQueues(queues: readonly ObjectQueues<RawEvent>[], logger: Logger): Promise<string[]> {
    const running = (await Promise.all(queues.map((q) => q.stop(this.settings.queueing.exitTimeout)))).flat();
    if (!running.length) return running;
    logger.debug(`Cancelling the handlers of ${running.length} object(s) still being handled.`);
    this.canceller.abort(new DOMException('The operator is stopping: its handlers are cancelled.', 'AbortError'));
    return (await Promise.all(queues.map((q) => q.settle((cycles) => exitInstantly(cycles, this.settings.background))))).flat();
  }

  /**
   * Runs the cleanup handlers. They are not guaranteed to finish (as in Kopf), but they must not
   * hold the exit forever: past the limit they are cancelled, and then left if they do not end.
   */
  private async cleanUp(cleanups: readonly ActivityHandler[], client: ResourceClient, logger: Logger): Promise<void> {
    const limit = this.settings.process.ultimateExitingTimeout;
    const signal = limit === null ? new AbortController().signal : AbortSignal.timeout(limit * 1000);
    let ended = false;
    const indices = this.indexers.indices;
    const env = { settings: this.settings, logger: this.logger, memo: this.memo, client, signal, indices };
    const cleanup = runActivity(cleanups, 'cleanup', env)
      .catch((e: unknown) => logger.error('Cleanup failed.', e))
      .finally(() => { ended = true; });
    await Promise.race([cleanup, aborted(signal).then(() => exitInstantly(cleanup, this.settings.background))]);
    if (!ended) logger.warning(`The cleanup handlers were still running ${limit} s after the cleanup began, and did not end when cancelled: they are left as they are.`);
  }

  /** Serves the namespaces: the given ones, or for glob patterns those that match, as they come and go. */
  private async serveNamespaces(client: KubeClient, serving: Serving, peering: Peering | undefined, signal: AbortSignal, logger: Logger): Promise<void> {
    const patterns = this.options.namespaces ?? [];
    if (this.options.clusterwide || !patterns.length) return;
    const added = (namespace: string) => { peering?.addNamespace(namespace); serving.addNamespace(namespace); };
    if (!patterns.some(isGlob)) {
      for (const namespace of patterns) added(namespace);
      return;
    }
    await observeNamespaces(client, patterns, {
      added,
      removed: (namespace) => { void serving.removeNamespace(namespace); void peering?.removeNamespace(namespace); },
    }, signal, logger);
  }

  /** Serves the resources that can be now; returns the names that are not served (yet). */
  private async serveResources(client: KubeClient, serve: (ref: ResourceRef, resource: ResourceDescriptor) => void, logger: Logger): Promise<string[]> {
    const unresolved: string[] = [];
    for (const ref of this.registry.resources()) {
      if (typeof ref !== 'string') {
        serve(ref, ref);
        continue;
      }
      try {
        serve(ref, await resolveResource(client, ref));
      } catch (error) {
        if (!(error instanceof UnresolvedResourceError)) throw error; // an outage is not a missing CRD
        if (error.reason === 'ambiguous') logger.warning(`Ambiguous resources will not be served (try specifying API groups): ${describe(ref)}: ${error.message}`);
        else logger.warning(`Unresolved resources cannot be served (try creating their CRDs): ${describe(ref)}: ${error.message}`);
        unresolved.push(ref);
      }
    }
    return unresolved;
  }

  private makeQueue(client: KubeClient, resource: ResourceDescriptor, changing: ChangingHandler[], watching: EventHandler[], poster: EventPoster, logger: Logger, signal: AbortSignal) {
    const memories = new Memories(() => this.memo);
    const proc: ResourceProcessor = {
      resource, client, settings: this.settings, changing, watching, poster,
      lifecycle: this.options.lifecycle ?? asap, memories, kept: new KeptFields(), logger,
      requeue: (key, event) => queue.push(key, event), stopping: signal, cancelled: this.canceller.signal,
      offer: (key, event) => queue.offer(key, event), indices: this.indexers.indices,
    };
    const queue: ObjectQueues<RawEvent> = new ObjectQueues((key, work) => processEvent(proc, key, work.event, work.pressure), { workerLimit: this.settings.queueing.workerLimit });
    return { queue, proc };
  }

  /**
   * Streams a resource's events into its queue while the operator is not paused. A pause closes
   * the stream; the resume lists the objects again, as Kopf does, so nothing changed meanwhile is
   * missed. `gate`: for indexed resources, held until the first listing is over, and by objects
   * seen until it opens.
   */
  private async watch(
    client: KubeClient, served: ServedResource, namespace: string | null, queue: ObjectQueues<RawEvent>,
    signal: AbortSignal, logger: Logger, gate?: IndexReadiness,
  ): Promise<void> {
    const listing = {}; // this stream's hold on the gate
    gate?.hold(listing);
    const where = namespace === null ? 'cluster-wide' : `in '${namespace}'`;
    while (!signal.aborted) {
      if (this.pauses.on) {
        const blockers = this.pauses.blockers();
        logger.debug(`Pausing the watch-stream for ${watchName(served.current())} ${where} (blockers: ${blockers.join(', ')}).`);
        if (!(await this.pauses.wait(false, signal))) return;
        logger.debug(`Resuming the watch-stream for ${watchName(served.current())} ${where} (resolved: ${blockers.join(', ')}).`);
      }
      const untilPaused = this.pauses.untilOn(signal);
      try {
        await this.stream(client, served, namespace, queue, untilPaused.signal, logger, gate, listing);
      } finally {
        untilPaused.dispose();
      }
    }
  }

  private async stream(
    client: KubeClient, served: ServedResource, namespace: string | null, queue: ObjectQueues<RawEvent>,
    signal: AbortSignal, logger: Logger, gate: IndexReadiness | undefined, listing: object,
  ): Promise<void> {
    const where = namespace === null ? 'cluster-wide' : `in '${namespace}'`;
    logger.debug(`Starting the watch-stream for ${watchName(served.current())} ${where}.`);
    const name = `${watchName(served.current())} ${where}`;
    const liveness = this.freshness.track(name, this.settings.watching.inactivityTimeout);
    // Watched until told to stop; a stream that failed for good stays stale, as it is.
    signal.addEventListener('abort', () => liveness.ended(), { once: true });
    const options = {
      namespace, signal, serverTimeout: this.settings.watching.serverTimeout ?? undefined, liveness,
      onUnsupported: (raw: unknown) => logger.warning(`Ignoring an unsupported event type: ${JSON.stringify(raw)}`),
    };
    let streaming = false;
    for await (const event of watchServed<KubeObject>(client, served, options, logger, (resource) => `The resource ${watchName(resource)} ${where}`)) {
      // A listing after the stream has begun is a restart (410 Gone, or the resource served again).
      if (streaming && (event.type === 'LISTED' || event.type === 'LISTED_DONE')) logger.debug(`Restarting the watch-stream for ${watchName(served.current())} ${where}.`);
      if (event.type === 'LISTED') streaming = false;
      else if (event.type === 'LISTED_DONE') streaming = true;
      if (event.type === 'LISTED_DONE') gate?.release(listing);
      // Listed objects are events of type `null`, as in Kopf; bookmarks and list ends carry no object.
      if (!('object' in event)) continue;
      const key = keyOf(event.object);
      if (gate && !gate.open) gate.hold(key); // released once the object is indexed
      queue.push(key, { type: event.type === 'LISTED' ? null : event.type, object: event.object });
    }
    gate?.release(listing);
    logger.debug(`Stopping the watch-stream for ${watchName(served.current())} ${where}.`);
  }
}

/**
 * Whether a resource resolved by name can be served, as Kopf decides: it must be listed and watched,
 * and patched too if changing handlers, timers or daemons (which write progress, results and the
 * finalizer) are registered for it.
 */
function servable(ref: ResourceRef, resource: ResourceDescriptor, patching: boolean, logger: Logger): boolean {
  const unwatchable = missingVerbs(resource, ['list', 'watch']);
  if (unwatchable.length) logger.warning(`Non-watchable resources will not be served: ${describe(ref)} (it cannot be ${unwatchable.map((verb) => `${verb}ed`).join(' or ')}).`);
  else if (patching && missingVerbs(resource, ['patch']).length) logger.warning(`Non-patchable resources will not be served: ${describe(ref)} (it has changing handlers, which write to the objects).`);
  else return true;
  return false;
}

/** The API client's knobs, from Kopf's networking and watching settings; its requests logged with `--debug`. */
function clientOptions(settings: OperatorSettings, logger: Logger): KubeClientOptions {
  const n = settings.networking, w = settings.watching;
  const api = logger.child('kopf.api');
  const trace = logger.config.verbosity === 'debug'
    ? (t: RequestTrace) => api.debug(`${t.method} ${t.path} → ${t.status || 'no response'} in ${t.ms.toFixed(1)} ms`)
    : undefined;
  // Retries of a failing request can take a minute: each is said, so that it does not look like a hang.
  const onRetry = (r: RetryNotice) => {
    const what = r.error instanceof ApiError ? r.error.message : `${r.method} ${r.path}: ${thrownText(r.error)}`;
    api.warning(`Request attempt #${r.attempt}/${r.attempts} failed; retrying in ${r.delay.toFixed(1)} s: ${what}`);
  };
  return {
    trace, onRetry,
    requestTimeout: n.requestTimeout ?? undefined,
    connectTimeout: n.connectTimeout ?? undefined,
    errorBackoffs: [...n.errorBackoffs],
    enforceRetryAfter: n.enforceRetryAfter,
    readCoalescing: n.readCoalescing,
    watchReconnectBackoff: w.reconnectBackoff,
    watchInactivityTimeout: w.inactivityTimeout,
  };
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => { if (signal.aborted) resolve(); else signal.addEventListener('abort', () => resolve(), { once: true }); });
}

/**
 * For a resource named by a string whose descriptor is not served any more: resolves the name
 * again, as Kopf re-scans, and serves the objects where the name is served now (another group, or
 * another version), if it can be served the same way. Each place it cannot be served is reported
 * once.
 */
function relocator(client: KubeClient, name: string, proc: ResourceProcessor, patching: boolean, logger: Logger): (was: ResourceDescriptor) => Promise<boolean> {
  const refused = new Set<string>();
  return async (was) => {
    if (proc.resource !== was) return true; // another stream of the resource followed it already
    let found: ResourceDescriptor;
    try {
      client.discovery.invalidate(); // it still lists what is not served
      found = await resolveResource(client, name);
    } catch (error) {
      // Not listed, or discovery itself failing (kube-apiserver restarting): the stream asks for
      // the resource again after its backoff, and resolves the name again if it is still missing.
      if (!(error instanceof UnresolvedResourceError)) logger.debug(`Resolving ${describe(name)} again failed: ${thrownText(error)}`);
      return false;
    }
    if (proc.resource !== was) return true;
    if (sameResource(found, was) || refused.has(watchName(found))) return false;
    if (found.scope !== was.scope) {
      logger.warning(`The resource ${describe(name)} is served as ${watchName(found)} now, which is ${found.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}: serving it takes a restart.`);
    } else if (servable(name, found, patching, logger)) {
      logger.info(`The resource ${describe(name)} is served as ${watchName(found)} now, not as ${watchName(was)}.`);
      proc.resource = found;
      proc.kept = new KeptFields(); // another schema
      return true;
    }
    refused.add(watchName(found));
    return false;
  };
}

/** How Kopf names a resource in its watch messages: `kopfexamples.v1.kopf.dev`. */
function watchName(resource: ResourceDescriptor): string {
  return [resource.plural, resource.version, resource.group].filter(Boolean).join('.');
}

/** Maps the operator's peering and leader-election options into its settings, as Kopf maps `kopf run`'s. */
function applyPeeringOptions(settings: OperatorSettings, options: OperatorOptions): void {
  settings.peering.clusterwide = options.clusterwide || !options.namespaces?.length;
  if (options.peering !== undefined) {
    settings.peering.name = options.peering;
    settings.peering.mandatory = true;
  }
  if (options.standalone !== undefined) settings.peering.standalone = options.standalone;
  if (options.priority !== undefined) settings.peering.priority = options.priority;
  if (options.leaderElection !== undefined) settings.leaderElection.name = options.leaderElection;
}

/** Starts an operator; `await op.ready`, then `await op.stop()` (or abort `signal`). */
export function operator(options: OperatorOptions = {}): Operator {
  return new Operator(options);
}
