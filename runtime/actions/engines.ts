/**
 * What the engines exchange about one event, as Kopf's engines exchange causes: the processing of
 * an event offers a view of it to the resource's timers and daemons and to the indexing, and
 * learns from them what it needs for the object's finalizer and for the gate of the indexes. The
 * engines meet here, below them all, and never import each other.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Logger } from '../logging/index.ts';
import type { FilterContext, Memo, ResourceContext } from '../registry/contexts.ts';
import type { HandlerState } from '../handling/execution.ts';
import type { InvocationScope } from './scope.ts';
import type { ReconcileTrigger } from '../observation/metrics.ts';
import type { ReconcilerStanding } from '../conditions/standing.ts';

/** What the per-event processing needs to know for the object's finalizer (from timers, daemons, reconcilers). */
export interface SpawningVerdict {
  /** Handlers match that need the finalizer (not those ended for good). */
  required: boolean;
  /** The object is being deleted and some of its tasks have not exited yet. */
  holding: boolean;
}


export interface EventView {
  key: string;
  body: KubeObject;
  memo: Memo;
  deleting: boolean;
  /** Filter callbacks see this. */
  ctx: FilterContext<KubeObject>;
  /** Whether the essence differs from the diff-base (asked only if an idle timer needs it). */
  changed: () => boolean;
}

/** What the indexing of one event needs to know of the event and of its object. */
export interface IndexedEvent {
  /** The object's key in the queues, which also keys its values in the indexes. */
  key: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | null;
  body: KubeObject;
  /** The object's context, as its other handlers get it. */
  context: ResourceContext<KubeObject>;
  /** The failures and retries of index functions for this object, kept between its events. */
  states: Map<string, HandlerState>;
}

/**
 * What an engine keeps of an object between its events (its tasks, its requests, its entries),
 * told by the object's one memory (`processing/memories.ts`) when the object is gone or let go:
 * no engine is told separately, so none is forgotten.
 */
export interface ObjectFollower {
  /** The object is deleted: nothing of it is kept. */
  forget(key: string): void;
  /** The object is served elsewhere now, though it exists: what runs for it here stops (awaited). */
  letGo(key: string): void | Promise<void>;
}

/**
 * How a ring replica lets one of its objects go (`sharding/share.ts`): every engine's part of it
 * stopped and forgotten, but our last write to it, awaited should it come back.
 */
export interface ObjectRelease {
  letGo(key: string): Promise<void>;
}

/** What the processing asks of the resource's timers and daemons (`daemons/spawning.ts`). */
export interface ObjectSpawning extends ObjectFollower {
  handle(event: EventView): SpawningVerdict;
}

/** What the processing asks of the operator's indexing (`indexing/indexing.ts`). */
export interface EventIndexing {
  readonly handlers: readonly unknown[];
  index(env: InvocationScope & { readonly cancelled: AbortSignal }, event: IndexedEvent, logger: Logger): Promise<void>;
  admit(key: string, requeue: () => void): boolean;
}


/** One run of a reconciler, as the processing of an object's event or request offers it. */
export interface ReconcileView {
  key: string;
  body: KubeObject;
  /** The object's context, as its other handlers get it: its patch is the cycle's work, written after the decision. */
  context: ResourceContext<KubeObject>;
  logger: Logger;
  /** What queued the run; absent for an event of the object itself. */
  trigger?: ReconcileTrigger;
}

/** What the processing asks of the resource's reconciler (`reconciling/`), in the object's own queue. */
export interface ObjectReconciling extends ObjectFollower {
  /** Runs the reconciler for the object if it is due, its patch into the context's; whether it ran. */
  reconcile(view: ReconcileView): Promise<boolean>;
  /** How the reconciler's last run on the object ended, if it ran. */
  standing(key: string): ReconcilerStanding | undefined;
  /** What the reconciler needs of the object's finalizer. */
  verdict(key: string, body: KubeObject, ctx: FilterContext<KubeObject>): SpawningVerdict;
}
