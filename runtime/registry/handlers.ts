/**
 * Handler options as users write them, and handler records as the registry keeps them.
 */
import type { ErrorsMode } from '../structs/errors.ts';
import type { FieldMap, KubeObject, ObjectMeta, ResourceDescriptor } from '../structs/resources.ts';
import type { Activity, ActivityFn, FilterContext, Reason } from './contexts.ts';
import type { HandlerId } from './ids.ts';
import type { Presence } from './markers.ts';

/** A label or annotation filter value: exact text, present/absent, or a predicate. */
export type MetaFilter<T extends KubeObject> =
  string | Presence | ((value: string | undefined, ctx: FilterContext<T>) => boolean);
/** A field value filter: an exact (deep-equal) value, present/absent, or a predicate. */
export type ValueFilter<V, T extends KubeObject> =
  V | Presence | ((value: V | undefined, ctx: FilterContext<T>) => boolean);

export interface FilterOptions<T extends KubeObject> {
  labels?: Record<string, MetaFilter<T>>;
  annotations?: Record<string, MetaFilter<T>>;
  when?: (ctx: FilterContext<T>) => boolean;
}

export interface RetryOptions {
  /** Handler id; defaults to the function's name. */
  id?: string;
  /** What an arbitrary error means; `'temporary'` by default. */
  errors?: ErrorsMode;
  /** Seconds since the first attempt after which the handler fails. */
  timeout?: number;
  /** Total number of attempts allowed. */
  retries?: number;
  /** Seconds to wait after an arbitrary error; `settings.execution.defaultBackoff` by default. */
  backoff?: number;
  /** Passed to the handler as `param`. */
  param?: unknown;
}

/** Field filters; `P` is the field path, checked against the resource's field map. */
export interface FieldOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string> {
  field?: P;
  value?: ValueFilter<F[P], T>;
}

export type ChangingOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  RetryOptions & FilterOptions<T> & FieldOptions<T, F, P>;
export type UpdateOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  ChangingOptions<T, F, P> & { old?: ValueFilter<F[P], T>; new?: ValueFilter<F[P], T> };
export type DeleteOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  ChangingOptions<T, F, P> & { /** Do not add a finalizer for this handler. */ optional?: boolean };
export type ResumeOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  ChangingOptions<T, F, P> & { /** Also resume objects that are being deleted. */ deleted?: boolean };
export type EventOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  FilterOptions<T> & FieldOptions<T, F, P> & { id?: string; param?: unknown };
export type SubhandlerOptions<T extends KubeObject> = RetryOptions & FilterOptions<T>;

/** Timers and daemons: the filters of watch-level handlers (a `field` must be present) and retries. */
export type SpawningOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  RetryOptions & FilterOptions<T> & FieldOptions<T, F, P> & {
    /** Seconds before the first call, counted from the spawning; interrupted by a stop. */
    initialDelay?: number;
  };

export type TimerOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  SpawningOptions<T, F, P> & {
    /** Seconds between calls (after a success); without it and without `idle`, the timer runs once. */
    interval?: number;
    /** Call only when the object's essence has not changed for this many seconds. */
    idle?: number;
    /** Keep the calls on the interval's grid (counted from the first call), whatever they take. */
    sharp?: boolean;
  };

export type DaemonOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  SpawningOptions<T, F, P> & {
    /** Seconds between `stopped` and the cancellation (the `signal` of the context); none by default. */
    cancellationBackoff?: number;
    /** Seconds to wait after the cancellation before the daemon is abandoned; never cancelled without it. */
    cancellationTimeout?: number;
    /**
     * Seconds between the checks of a stopped daemon that is never cancelled;
     * `background.cancellationPolling` by default.
     */
    cancellationPolling?: number;
  };
/** Index handlers: `errors` is `'ignored'` by default; the id is the index's name (no field suffix). */
export type IndexOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  ChangingOptions<T, F, P>;
export type ActivityOptions = RetryOptions;

/** Where a reconcile request goes: an object of the reconciled resource, by its namespace and name. */
export interface ReconcileRequest {
  /** `null` or absent for cluster-scoped objects. */
  namespace?: string | null;
  /** A request without a name (the related object does not name one) is ignored. */
  name: string | null | undefined;
}

/**
 * A related resource: a change of one of its objects queues requests for the objects that `map`
 * names. With `metadataOnly`, it is watched as metadata only (`PartialObjectMetadata`), and `map`
 * gets just that: less memory and traffic for a mapping that reads labels, annotations or names.
 * (`map` is a method so that it may declare the object's own type: `map(secret: V1Secret)`.)
 */
export interface WatchedResource {
  resource: ResourceDescriptor;
  metadataOnly?: boolean;
  map(object: RelatedObject): readonly ReconcileRequest[];
}

/** An owned resource watched as metadata only (`PartialObjectMetadata`): less memory and traffic. */
export interface OwnedResource {
  resource: ResourceDescriptor;
  metadataOnly?: boolean;
}

/** An object of a related resource, as its watch brings it: always with its metadata. */
export type RelatedObject = KubeObject & { metadata: ObjectMeta };

/** `on.reconcile`: the filters of watch-level handlers, and what else makes an object need work. */
export type ReconcileOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  FilterOptions<T> & FieldOptions<T, F, P> & {
    /** The reconciler's id; defaults to the function's name. */
    id?: string;
    /** Passed to the reconciler as `param`. */
    param?: unknown;
    /**
     * Resources of children: a change of one whose controller owner reference points to an object
     * of this resource queues that object. Watched in full, and read in the reconciler with
     * `owned(resource)`; `{ resource, metadataOnly: true }` watches their metadata only.
     */
    owns?: readonly (ResourceDescriptor | OwnedResource)[];
    /** Related resources: a change of one of their objects queues the objects its `map` names. */
    watches?: readonly WatchedResource[];
    /** Seconds: every object is reconciled at least this often (counted from its last run). */
    resync?: number;
    /**
     * Keep the operator's finalizer on the objects; call the reconciler while one is deleted
     * (`deleting: true`), and let the object go once it returns without an error.
     */
    finalizer?: boolean;
  };

/** What a resource selector is before it is resolved: a descriptor, or a name for discovery. */
export type ResourceRef = ResourceDescriptor | string;

/** The normalised filters of any resource handler, as the matcher reads them. */
export interface HandlerFilters {
  labels?: Record<string, MetaFilter<KubeObject>>;
  annotations?: Record<string, MetaFilter<KubeObject>>;
  when?: (ctx: FilterContext<KubeObject>) => boolean;
  field?: string[];
  value?: unknown;
  old?: unknown;
  new?: unknown;
  /** Which of value/old/new were given (a filter may legitimately be `undefined`-valued). */
  has: { value: boolean; old: boolean; new: boolean };
}

export interface HandlerBase {
  id: HandlerId;
  fn: Function;
  param: unknown;
  errors: ErrorsMode | undefined;
  timeout: number | undefined;
  retries: number | undefined;
  backoff: number | undefined;
}

/** create/update/delete/resume/field handlers (Kopf's "changing" handlers). */
export interface ChangingHandler extends HandlerBase {
  kind: 'changing';
  resource: ResourceRef;
  /** The causes it reacts to; `null` = any (a field handler). */
  reasons: readonly Reason[] | null;
  filters: HandlerFilters;
  /** Non-optional delete handlers keep the object from vanishing before they ran. */
  requiresFinalizer: boolean;
  /** Resume handlers: also while the object is being deleted. */
  deleted: boolean;
  /** Resume handlers are mixed into the first cycle of an object seen in the initial listing. */
  initial: boolean;
}

export interface EventHandler extends HandlerBase {
  kind: 'event';
  resource: ResourceRef;
  filters: HandlerFilters;
}

export interface ActivityHandler extends HandlerBase {
  kind: 'activity';
  activity: Activity;
  fn: ActivityFn;
}

/** Timers and daemons (Kopf's "spawning" handlers): a task per matching object. */
export interface SpawningBase extends HandlerBase {
  resource: ResourceRef;
  filters: HandlerFilters;
  initialDelay: number | undefined;
}

export interface TimerHandler extends SpawningBase {
  kind: 'timer';
  interval: number | undefined;
  idle: number | undefined;
  sharp: boolean;
}

export interface DaemonHandler extends SpawningBase {
  kind: 'daemon';
  cancellationBackoff: number | undefined;
  cancellationTimeout: number | undefined;
  cancellationPolling: number | undefined;
}

export type SpawningHandler = TimerHandler | DaemonHandler;

/** `on.index` handlers: what they return for an object is stored in the index named by their id. */
export interface IndexingHandler extends HandlerBase {
  kind: 'index';
  resource: ResourceRef;
  filters: HandlerFilters;
}

/** A related resource of a reconciler, normalised: owned ones map through their controller owner reference. */
export interface RelatedResource {
  resource: ResourceDescriptor;
  /** Watched as metadata only. */
  metadataOnly: boolean;
  /** `null` for owned resources: the owner reference names the object. */
  map: ((object: RelatedObject) => readonly ReconcileRequest[]) | null;
}

/** `on.reconcile`: level-triggered, called with the latest state whenever an object may need work. */
export interface ReconcileHandler extends HandlerBase {
  kind: 'reconcile';
  resource: ResourceRef;
  filters: HandlerFilters;
  owns: readonly RelatedResource[];
  watches: readonly RelatedResource[];
  resync: number | undefined;
  finalizer: boolean;
}

export type ResourceHandler = ChangingHandler | EventHandler | IndexingHandler | SpawningHandler | ReconcileHandler;
