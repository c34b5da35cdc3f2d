/**
 * A served resource's reconciler (`on.reconcile`), level-triggered beside Kopf's handlers: it is
 * run by the processing of the object's events, in the object's own queue, so that it never
 * overlaps Kopf's handlers of that object. Everything else that may call for work — a related
 * object's change, the resync period, a requeue, a retry — becomes a request: an event of the
 * latest body seen, put in that queue unless an event waits there already (it runs the reconciler
 * anyway, with a state as new). Nothing is stored on the object: the failures, the
 * retries and the timers are kept in memory, per object, and dropped when the object is gone.
 */
import type { KubeObject } from '../structs/resources.ts';
import { thrownText } from '../structs/errors.ts';
import type { Logger } from '../logging/index.ts';
import type { FilterContext, ReconcileContext } from '../registry/contexts.ts';
import type { ReconcileHandler, RelatedObject, RelatedResource } from '../registry/handlers.ts';
import { matchesBody } from '../registry/filters.ts';
import { invokeHandler, observerOf } from '../actions/invocation.ts';
import { callHandler } from '../handling/calls.ts';
import { resourceLabel } from '../observation/resource-names.ts';
import type { ObjectReconciling, ReconcileView, SpawningVerdict } from '../actions/engines.ts';
import type { RawEvent, ResourceScope } from '../actions/scope.ts';
import type { ReconcileTrigger } from '../observation/metrics.ts';
import { failureOf, outcomeName, successOf, type RunOutcome } from './run-outcomes.ts';
import { controllerUid, nameKey, requestedNames } from './related-requests.ts';
import { RelatedObjects } from './related-cache.ts';
import { currentClock, type ClockTimer } from '../structs/clock.ts';
import type { ReconcilerStanding } from '../conditions/standing.ts';

export interface ReconcilerEnv {
  /** The served resource, where it is served now. */
  readonly scope: ResourceScope;
  /** Puts a request for an object into its queue (`queueing/requests.ts`: it yields to what waits there). */
  enqueue(key: string, request: RawEvent): void;
  /** The operator is stopping: no new timers. */
  readonly stopping: AbortSignal;
}

/** What the reconciler remembers of one object between its runs. */
interface ObjectRecord {
  /** The latest body seen: what a request reconciles. */
  body: KubeObject;
  /** Its `namespace/name`, by which `map` names it. */
  name: string;
  /** Failed runs since the last success. */
  failures: number;
  /** The resourceVersion it failed for with a `PermanentError`: not run again until it changes. */
  failedFor?: string;
  /** Its deletion is reconciled: the finalizer may go. */
  released: boolean;
  /** The next request: a requeue, a retry, or the resync (on the operator's clock). */
  timer?: ClockTimer;
  /** How its last run ended, for the status that tools read. */
  standing?: ReconcilerStanding;
}

export class ResourceReconciler implements ObjectReconciling {
  readonly handler: ReconcileHandler;
  readonly #env: ReconcilerEnv;
  readonly #records = new Map<string, ObjectRecord>();
  /** Object keys by `namespace/name`, for the requests of `map`. */
  readonly #keys = new Map<string, string>();
  readonly #title: string;
  /** What the watches of the related resources have brought: the reconciler's reads of them. */
  readonly #related: RelatedObjects;

  constructor(handler: ReconcileHandler, env: ReconcilerEnv) {
    this.handler = handler;
    this.#env = env;
    this.#title = `Reconciler '${handler.id}'`;
    const ownerOf = (object: KubeObject) => controllerUid(object, this.#env.scope.resource);
    this.#related = new RelatedObjects(handler.owns, handler.watches, ownerOf, this.#title);
  }

  async reconcile(view: ReconcileView): Promise<boolean> {
    const { key, body, context, logger, trigger = 'change' } = view;
    const record = this.#recall(key, body);
    const deleting = Boolean(body.metadata?.deletionTimestamp);
    const due = matchesBody(this.handler.filters, body, context) &&
      (!deleting || (this.handler.finalizer && !record.released));
    if (!due) {
      this.#cancel(record);
      return false;
    }
    if (failedForGood(record)) return false;
    record.failedFor = undefined;
    const { metrics, resource } = this.#env.scope;
    if (metrics) metrics.reconcileRequest(resourceLabel(resource), trigger);
    const version = body.metadata?.resourceVersion;
    this.#cancel(record);
    // Its `patch` is the cycle's (the context's): written with the rest of the cycle's work, in one plan.
    const uid = body.metadata?.uid ?? '';
    const related = this.#related;
    const ctx: ReconcileContext<KubeObject> = {
      ...context, logger, retry: record.failures, param: this.handler.param, deleting, cache: related,
      owned: (resource) => related.owned(uid, resource),
      ownedMetadata: (resource) => related.ownedMetadata(uid, resource),
    };
    const outcome = await this.#run(body, ctx, record.failures, logger);
    this.#remember(key, record, outcome, version, deleting, logger);
    return true;
  }

  /** One call of the reconciler, traced and counted as every handler's is. */
  #run(body: KubeObject, ctx: ReconcileContext<KubeObject>, failures: number, logger: Logger): Promise<RunOutcome> {
    const { scope } = this.#env;
    return callHandler<RunOutcome>({
      id: this.handler.id, retry: failures, object: logger.ref, cause: 'reconcile',
      observer: observerOf(scope, 'reconcile'),
      returned: (result) => successOf(result, logger, this.#title),
      threw: (error) => {
        const outcome = failureOf(error, failures + 1, scope.settings.reconciling);
        this.#report(outcome, error, logger);
        return outcome;
      },
      named: outcomeName,
    }, () => invokeHandler(scope, logger, body, this.handler.fn, ctx));
  }

  verdict(key: string, body: KubeObject, ctx: FilterContext<KubeObject>): SpawningVerdict {
    const required = this.handler.finalizer && matchesBody(this.handler.filters, body, ctx);
    const deleting = Boolean(body.metadata?.deletionTimestamp);
    return { required, holding: required && deleting && !this.#records.get(key)?.released };
  }

  standing(key: string): ReconcilerStanding | undefined {
    return this.#records.get(key)?.standing;
  }

  /** The object is served elsewhere (a ring's other replica): its requests and timers are dropped here. */
  letGo(key: string): void {
    this.forget(key);
  }

  forget(key: string): void {
    const record = this.#records.get(key);
    if (!record) return;
    this.#cancel(record);
    this.#records.delete(key);
    if (this.#keys.get(record.name) === key) this.#keys.delete(record.name);
  }

  /** Queues a request for the object of `key`, if it is known and not failed for good in its current state. */
  request(key: string, trigger: ReconcileTrigger): void {
    const record = this.#records.get(key);
    if (!record || failedForGood(record)) return;
    this.#env.enqueue(key, { kind: 'reconcile', type: 'MODIFIED', object: record.body, trigger });
  }

  /** A related object changed (or was listed, or deleted): kept for reads, and requests for the objects it concerns. */
  related(related: RelatedResource, object: KubeObject, type: RawEvent['type'] = null): void {
    this.#related.seen(related, object, type);
    if (!related.map) {
      const owner = controllerUid(object, this.#env.scope.resource);
      if (owner) this.request(owner, 'owned');
      return;
    }
    const meta = object.metadata;
    if (!meta || typeof meta !== 'object') return; // nothing names an object without metadata
    let requested: unknown;
    try {
      requested = related.map(object as RelatedObject);
    } catch (error) {
      const name = nameKey(meta.namespace, String(meta.name));
      this.#env.scope.logger.error(`The mapping of ${this.#title} failed for ${name}: ${thrownText(error)}`, error);
      return;
    }
    const { names, malformed } = requestedNames(requested);
    if (malformed) {
      const what = 'requests without a string name (or with a namespace that is not a string)';
      this.#env.scope.logger.warning(`The mapping of ${this.#title} returned ${malformed} ${what}; ignored.`);
    }
    for (const name of names) {
      const key = this.#keys.get(name);
      if (key !== undefined) this.request(key, 'watched');
    }
  }

  #recall(key: string, body: KubeObject): ObjectRecord {
    let record = this.#records.get(key);
    if (!record) {
      const name = nameKey(body.metadata?.namespace, body.metadata?.name ?? '');
      record = { body, name, failures: 0, released: false };
      this.#records.set(key, record);
      this.#keys.set(name, key);
    }
    record.body = body;
    return record;
  }

  /** Counts the run, and sets the timer of the next request that it calls for. */
  #remember(
    key: string, record: ObjectRecord, outcome: RunOutcome, version: string | undefined, deleting: boolean,
    logger: Logger,
  ): void {
    let delay: number | undefined;
    let trigger: ReconcileTrigger = 'retry';
    record.standing = standingOf(this.handler.id, outcome, record.failures + 1);
    if (outcome.kind === 'success') {
      const after = record.failures ? ` after ${record.failures} failure(s)` : '';
      logger.debug(`${this.#title} succeeded${after}.`);
      record.failures = 0;
      if (deleting) record.released = true;
      const { requeueAfter } = outcome, { resync } = this.handler;
      delay = requeueAfter === undefined || resync === undefined ? requeueAfter ?? resync
        : Math.min(requeueAfter, resync);
      trigger = requeueAfter !== undefined && delay === requeueAfter ? 'requeue' : 'resync';
    } else {
      record.failures++;
      // As Kopf lets go of an object whose deletion handlers failed for good: nothing would change it.
      if (outcome.kind === 'permanent' && deleting) record.released = true;
      if (outcome.kind === 'permanent') record.failedFor = version ?? '';
      else delay = outcome.delay;
    }
    if (delay === undefined || this.#env.stopping.aborted) return;
    record.timer = currentClock().setTimer(() => {
      record.timer = undefined;
      this.request(key, trigger);
    }, delay * 1000, false);
  }

  #report(outcome: RunOutcome, error: unknown, logger: Logger): void {
    const message = thrownText(error);
    if (outcome.kind === 'permanent') {
      logger.error(`${this.#title} failed permanently; not retried until the object changes: ${message}`, error);
    } else if (outcome.kind === 'temporary') {
      logger.error(`${this.#title} failed temporarily; retrying in ${outcome.delay} seconds: ${message}`, error);
    } else if (outcome.kind === 'arbitrary') {
      logger.error(`${this.#title} failed with an exception; retrying in ${outcome.delay} seconds: ${message}`, error);
    }
  }

  #cancel(record: ObjectRecord): void {
    record.timer?.cancel();
    record.timer = undefined;
  }
}

/** How a run ended, as the status that tools read tells it; `retry` counts the failures with this one. */
function standingOf(id: string, outcome: RunOutcome, retry: number): ReconcilerStanding {
  switch (outcome.kind) {
    case 'success':
      return outcome.requeueAfter === undefined ? { id, kind: 'done' }
        : { id, kind: 'requeued', delay: outcome.requeueAfter };
    case 'permanent': return { id, kind: 'failed', message: outcome.message };
    default: return { id, kind: 'retrying', retry, delay: outcome.delay, message: outcome.message };
  }
}

/** Whether the reconciler failed for good on the object as it is now (its version unchanged since). */
function failedForGood(record: ObjectRecord): boolean {
  return record.failedFor !== undefined && record.failedFor === record.body.metadata?.resourceVersion;
}
