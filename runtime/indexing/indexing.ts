/**
 * Indexing one watch event (as kopf/_core/engines/indexing.py does), before any other handler of
 * the object runs, and then the gate: the object's handlers wait until every indexed resource is
 * listed and indexed.
 *
 * The index functions that match the object are called on every event but a deletion; what they
 * return replaces what they gave for the object before; a deletion, or an object that stopped
 * matching, takes the object's values out. Errors are ignored by default (the old values stay).
 * A failed attempt takes the object's values out of that index: for good after a permanent error,
 * until the retry is due after a temporary one. Only failures and retries are remembered.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/index.ts';
import type { EventPoster } from '../posting/index.ts';
import { observerOf, invokeHandler } from '../actions/invocation.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import type { ResourceDescriptor } from '../structs/resources.ts';
import type { IndexedEvent, ObjectFollower } from '../actions/engines.ts';
import type { IndexingHandler } from '../registry/handlers.ts';
import type { FilterContext, IndexContext } from '../registry/contexts.ts';
import { matchesBody } from '../registry/filters.ts';
import { executeOnce, type Attempt } from '../handling/execution.ts';
import { isFinished, isSleeping, Timestamp } from '../progress/index.ts';
import type { OperatorIndexers } from '../indices/indexers.ts';
import type { IndexReadiness } from '../indices/index-readiness.ts';

export interface IndexingEnv {
  settings: OperatorSettings;
  poster: EventPoster;
  /** Aborted when the operator cancels its handlers. */
  cancelled: AbortSignal;
  /** The served resource and the operator's metrics, where the index handlers' runs are reported. */
  resource: ResourceDescriptor;
  metrics?: OperatorMetrics;
}

/**
 * One resource's part of the operator's indexing: its index handlers (maybe none, as every
 * resource's handlers wait for the gate), the operator's indexes and the gate, and the events
 * that wait for it, one per object (the latest).
 */
export class ResourceIndexing implements ObjectFollower {
  readonly handlers: readonly IndexingHandler[];
  private readonly indexers: OperatorIndexers;
  private readonly readiness: IndexReadiness;
  private readonly parked = new Map<string, () => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(handlers: readonly IndexingHandler[], indexers: OperatorIndexers, readiness: IndexReadiness) {
    this.handlers = handlers;
    this.indexers = indexers;
    this.readiness = readiness;
  }

  /** Indexes the event's object, then releases the gate's hold on it (if any). */
  async index(env: IndexingEnv, event: IndexedEvent, logger: Logger): Promise<void> {
    this.parked.delete(event.key); // this event is newer than the one that waited
    try {
      if (event.type === 'DELETED') this.indexers.discardAll(event.key);
      else for (const handler of this.handlers) await this.runHandler(env, handler, event, logger);
    } finally {
      this.readiness.release(event.key);
    }
  }

  /**
   * Whether the object's handlers may run now; if not, `resume` is called when the gate opens,
   * unless a newer event of the object has been parked instead.
   */
  admit(key: string, resume: () => void): boolean {
    this.readiness.release(key); // indexed (or nothing to index): the object holds the gate no longer
    if (this.readiness.open) return true;
    this.parked.set(key, resume);
    this.unsubscribe ??= this.readiness.whenOpen(() => this.resumeAll());
    return false;
  }

  /** The object is deleted: its deletion's event took its values out; nothing of it waits any more. */
  forget(key: string): void {
    this.parked.delete(key);
  }

  /** The object is served elsewhere (a ring's other replica): its values leave the indexes, and the gate. */
  letGo(key: string): void {
    this.parked.delete(key);
    this.indexers.discardAll(key);
    this.readiness.release(key);
  }

  private resumeAll(): void {
    this.unsubscribe = undefined;
    const parked = [...this.parked.values()];
    this.parked.clear();
    for (const resume of parked) resume();
  }

  private async runHandler(
    env: IndexingEnv, handler: IndexingHandler, event: IndexedEvent, logger: Logger,
  ): Promise<void> {
    const { key, states } = event;
    const filtering: FilterContext<KubeObject> = { ...event.context, type: event.type };
    if (!matchesBody(handler.filters, event.body, filtering)) {
      this.indexers.discard(handler.id, key);
      return;
    }
    const now = Timestamp.now();
    const previous = states.get(handler.id);
    if (previous && (isFinished(previous) || isSleeping(previous, now))) {
      this.indexers.discard(handler.id, key); // excluded: for good, or until its retry is due
      return;
    }
    const { defaultBackoff } = env.settings.execution;
    const observer = observerOf(env, 'index');
    const options = { now, defaultBackoff, logger, cancelled: env.cancelled, noun: 'Indexer', observer };
    const invoke = (attempt: Attempt) => {
      const ctx: IndexContext<KubeObject> = { ...event.context, ...attempt, param: handler.param };
      return invokeHandler(env, logger, event.body, handler.fn, ctx);
    };
    const { outcome, state } = await executeOnce(handler, previous, options, invoke);
    if (outcome.exception) this.indexers.discard(handler.id, key);
    else if (outcome.result !== null && outcome.result !== undefined) {
      this.indexers.replace(handler.id, key, outcome.result);
    }
    // Successes (and ignored errors) are called afresh on the next event; failures are remembered.
    if (outcome.final && !outcome.exception) states.delete(handler.id);
    else states.set(handler.id, state);
  }
}
