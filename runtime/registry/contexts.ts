/**
 * What handlers receive: one context object per invocation (Kopf's keyword arguments).
 * Generated resource types flow in through `T` (the object) and `F` (its field map), so that
 * `spec`, `status`, `patch`, `old`/`new` of field handlers are checked against the schema.
 * The changing handlers' context, which registers sub-handlers, is in changingcontext.ts.
 */
import type { Diff } from '../structs/diffs.ts';
import type { Patch } from '../structs/patches.ts';
import type { FieldMap, JsonObject, KubeObject, ObjectMeta, ResourceDescriptor } from '../structs/resources.ts';
import type { Logger } from '../logging/index.ts';
import type { OperatorSettings } from '../config/settings.ts';
import type { ConnectionInfo, ResourceClient } from '../kube/index.ts';
import type { Indices } from '../indices/indices.ts';

export type Reason = 'create' | 'update' | 'delete' | 'resume';

/** A per-object (or, for activities, per-operator) scratch space that survives between events. */
export type Memo = Record<string, unknown>;

/**
 * A part of the object as handlers get it: as typed where the object always has it (`spec: S`);
 * where the API server may send the object without it (`spec?: S`), handlers get `{}`, and so
 * each of its fields may be absent (`Partial<S>`).
 */
type Part<T, K extends string> = T extends { [P in K]?: infer V }
  ? (T extends { [P in K]: unknown } ? NonNullable<V> : Partial<NonNullable<V>>)
  : JsonObject;
export type SpecOf<T> = Part<T, 'spec'>;
export type StatusOf<T> = Part<T, 'status'>;

/**
 * What every resource handler gets. The object's parts are read-only: writing to them would change
 * nothing on the cluster (Kopf's body is a read-only view too); changes go into `patch`, so that
 * `spec.replicas = 3` is a compile error that points there. Only their own fields are read-only
 * (`Readonly<T>`): deeper, type errors would name expanded types instead of `CertificateSpec`, and
 * every list would have to be copied to be passed on.
 */
export interface ResourceContext<T extends KubeObject> {
  body: Readonly<T>;
  spec: Readonly<SpecOf<T>>;
  status: Readonly<StatusOf<T>>;
  meta: Readonly<ObjectMeta>;
  name: string;
  namespace: string | null;
  uid: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  resource: ResourceDescriptor;
  patch: Patch<T>;
  logger: Logger;
  memo: Memo;
  /**
   * The operator's API client, for other objects than this one (children, built-ins): typed `get`,
   * `list`, `create`, `replace`, `patch`, `patchStatus`, `delete` for any descriptor. The handled
   * object itself is changed through `patch`, which is applied with the handler's progress.
   */
  client: ResourceClient;
  /**
   * Aborted when the operator stops and this handler is still running `queueing.exitTimeout`
   * seconds later; Kopf cancels its handlers' tasks then. Pass it on to what the handler awaits
   * (`fetch`, `setTimeout` of `node:timers/promises`, this package's API calls), so that it ends
   * at once: it is reported as cancelled, and runs again when the object is next processed.
   */
  signal: AbortSignal;
  /** The operator's indexes (`on.index`), read-only: `indices.get(handle)`. */
  indices: Indices;
  /**
   * The current time of the operator's clock: the system's, or a test's virtual clock
   * (`kopf/testing`), which also moves the runtime's scheduling of handlers. Read the time here
   * rather than with `new Date()` where a test should control it (a schedule, an age, a timeout).
   */
  now: () => Date;
}

/** Filter callbacks (`when`, value predicates) see the same, without the invocation details. */
export type FilterContext<T extends KubeObject> = ResourceContext<T> & {
  reason?: Reason;
  diff?: Diff;
  old?: unknown;
  new?: unknown;
  type?: WatchEventType | null;
};

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Details of the current attempt, for handlers that are retried. */
export interface InvocationContext {
  /** How many attempts were made before this one (0 on the first). */
  retry: number;
  /** When the first attempt started. */
  started: Date;
  /** Seconds since the first attempt started. */
  runtime: number;
  param: unknown;
}

export type EventContext<T extends KubeObject> = ResourceContext<T> & {
  /** `null` for objects seen in the initial listing, as Kopf does. */
  type: WatchEventType | null;
  event: { type: WatchEventType | null; object: Readonly<T> };
  param: unknown;
};

/** Why a timer or daemon is told to stop (Kopf's `DaemonStoppingReason`). */
export type StopReason = 'resource deleted' | 'no longer matching' | 'operator exiting' | 'operator pausing';

/**
 * The stop flag of a timer or daemon (Kopf's `stopped`). `signal` is aborted when it is told to
 * stop, for what the handler awaits (`fetch`, `setTimeout` of `node:timers/promises`, this
 * package's API calls); `wait(seconds)` sleeps, but ends as soon as it is told to stop.
 */
export interface Stopped {
  readonly signal: AbortSignal;
  /** Whether it has been told to stop. */
  readonly stopped: boolean;
  /** Why it has been told to stop; `undefined` while it has not. */
  readonly reason: StopReason | undefined;
  /** Sleeps `seconds` (forever if not given); resolves `true` if told to stop meanwhile, else `false`. */
  wait(seconds?: number): Promise<boolean>;
}

/**
 * What a timer or a daemon gets. The object's parts (`body`, `spec`, `status`, `meta`, `labels`,
 * `annotations`) are read-only live views, as Kopf's are: also when taken out of the context, they
 * show the latest body the operator has seen, refilled on every watch event. `signal` is aborted when
 * the handler is cancelled by force (a daemon's `cancellationTimeout`, or the operator's exit).
 */
export type SpawningContext<T extends KubeObject> = ResourceContext<T> & InvocationContext & {
  stopped: Stopped;
};
export type TimerContext<T extends KubeObject> = SpawningContext<T>;
export type DaemonContext<T extends KubeObject> = SpawningContext<T>;

/** Operator-level handlers, by when they run (Kopf's names: `on.login` is `authentication`). */
export type Activity = 'startup' | 'cleanup' | 'authentication' | 'probe';

export interface ActivityContext {
  /** Which activity runs the handler. */
  activity: Activity;
  settings: OperatorSettings;
  logger: Logger;
  memo: Memo;
  /**
   * The operator's API client (see `ResourceContext.client`). In startup handlers, the first call
   * connects it with the networking settings as they are then.
   */
  client: ResourceClient;
  retry: number;
  started: Date;
  runtime: number;
  param: unknown;
  /**
   * Startup, login, probes: aborted when the operator is stopped. Cleanup: aborted when
   * `process.ultimateExitingTimeout` has passed since the cleanup began. An activity that fails
   * once it is aborted is cancelled, as a resource handler is (see `ResourceContext.signal`).
   */
  signal: AbortSignal;
  /** The operator's indexes; startup handlers run before anything is indexed, so they see them empty. */
  indices: Indices;
  /** The current time of the operator's clock (see `ResourceContext.now`). */
  now: () => Date;
}

/** What an index function gets: the object, as other resource handlers do, and its attempt. */
export type IndexContext<T extends KubeObject> = ResourceContext<T> & InvocationContext;

/**
 * What a reconciler gets: the object's latest state, as other resource handlers get it, and its
 * attempt: `retry` counts the failures since its last success (0 after one).
 */
export type ReconcileContext<T extends KubeObject> = ResourceContext<T> & {
  /** Failed runs since the last success. */
  retry: number;
  param: unknown;
  /** The object is being deleted (only with `finalizer: true`); it goes once this run succeeds. */
  deleting: boolean;
  /**
   * The object's children of a resource in `owns` (their controller owner reference names it), as
   * the reconciler's own watch of them has brought them: full objects, read with no request. A
   * resource owned with `metadataOnly: true` is read with `ownedMetadata` instead.
   */
  owned<C extends KubeObject>(resource: ResourceDescriptor<C, FieldMap>): readonly Readonly<C>[];
  /** The same as metadata (`PartialObjectMetadata`), for any resource in `owns`. */
  ownedMetadata<C extends KubeObject>(resource: ResourceDescriptor<C, FieldMap>): readonly MetadataView<C>[];
  /** Reads of the objects of the resources in `watches` and `owns`, from the reconciler's own watches. */
  cache: RelatedCache;
};

/** An object as a metadata-only watch brings it (`PartialObjectMetadata`): its kind and metadata. */
export type MetadataView<T extends KubeObject> = Readonly<Pick<T, 'apiVersion' | 'kind'> & { metadata: ObjectMeta }>;

/**
 * The objects of a reconciler's related resources (`watches`, `owns`) as its watches have brought
 * them: current as of the latest event seen, read with no request to the API server. A resource
 * watched with `metadataOnly: true` gives its objects' metadata only.
 */
export interface RelatedCache {
  /** The object of this name (and namespace, for a namespaced resource), if the watch has it. */
  get<C extends KubeObject>(
    resource: ResourceDescriptor<C, FieldMap>, name: string, namespace?: string | null,
  ): Readonly<C> | undefined;
  /** The objects, of one namespace if given, matching a label selector (`a=b,c!=d,e in (f,g),!h`) if given. */
  list<C extends KubeObject>(
    resource: ResourceDescriptor<C, FieldMap>, options?: { namespace?: string | null; labelSelector?: string },
  ): readonly Readonly<C>[];
}

/** What a reconciler returns: nothing, or when to run again although nothing changes. */
export type ReconcileResult = { /** Seconds until the object is reconciled again. */ requeueAfter?: number } | void;

/** A reconciler: reads the world and makes it so; idempotent, as it runs whenever the object may need work. */
export type ReconcileFn<T extends KubeObject> =
  (ctx: ReconcileContext<T>) => ReconcileResult | undefined | Promise<ReconcileResult | undefined>;

type Result = unknown;
export type EventFn<T extends KubeObject> = (ctx: EventContext<T>) => Result | Promise<Result>;
export type TimerFn<T extends KubeObject> = (ctx: TimerContext<T>) => Result | Promise<Result>;
export type DaemonFn<T extends KubeObject> = (ctx: DaemonContext<T>) => Result | Promise<Result>;
export type ActivityFn = (ctx: ActivityContext) => Result | Promise<Result>;
/** A login handler: credentials, or nothing (then other login handlers must give some). */
type LoginResult = ConnectionInfo | null | undefined;
export type LoginFn = (ctx: ActivityContext) => LoginResult | Promise<LoginResult>;
/** A probe: its result is served by the liveness endpoint under the handler's id; JSON-serialisable. */
export type ProbeFn = (ctx: ActivityContext) => unknown;
/** An index function: a value, or a `{key: value}` object or `Map`, for the object; `null` keeps what it had. */
export type IndexFn<T extends KubeObject, R> = (ctx: IndexContext<T>) => R | Promise<R>;

