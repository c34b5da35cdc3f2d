/**
 * The registry: which handlers an operator has. `on.*` writes into it; the engines read it.
 * A default registry backs the module-level `on` (as Kopf's decorators do); embedded operators
 * can create their own, so several operators in one process share nothing.
 */
import type { FieldMap, KubeObject, ResourceDescriptor, UntypedFields } from '../structs/resources.ts';
import type { ChangingFn, FieldFn } from './changingcontext.ts';
import type {
  Activity, ActivityFn, DaemonFn, EventFn, IndexFn, LoginFn, ProbeFn, Reason, ReconcileFn, TimerFn,
} from './contexts.ts';
import type {
  ActivityHandler, ActivityOptions, ChangingHandler, ChangingOptions, DaemonHandler, DaemonOptions, DeleteOptions,
  EventHandler, EventOptions, HandlerFilters, ResourceHandler, ResourceRef, ResumeOptions,
  SubhandlerOptions, TimerHandler, TimerOptions, UpdateOptions, ReconcileOptions,
} from './handlers.ts';
import { reconcilerOf, type LooseReconcileOptions } from './reconcilers.ts';
import type { IndexingHandler, IndexOptions } from './handlers.ts';
import type { IndexHandle, IndexKeyOf, IndexValueOf } from '../indices/indices.ts';
import { childId, handlerId, RegistrationError } from './ids.ts';
import {
  checkFunction, checkResource, filtersOf, handlerBase, seconds,
  type LooseDaemonOptions, type LooseOptions, type LooseTimerOptions,
} from './registration-options.ts';
import {
  webhookOptionsOf, type MutatingFn, type ValidatingFn, type WebhookHandler, type WebhookKind, type WebhookOptions,
} from './webhooks.ts';
import { declaredPermission, type DeclaredPermission, type PermissionOptions, type RbacVerb } from './permissions.ts';
import { onConvert, type ConversionHandler, type OnConvert } from './conversions.ts';

type Keys<F> = keyof F & string;

/** The registration functions, typed by the resource descriptor (`on.convert`'s in conversions.ts). */
export interface On extends OnConvert {
  create<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ChangingFn<T, F>, options?: ChangingOptions<T, F, P>,
  ): void;
  create(
    resource: string, fn: ChangingFn<KubeObject, UntypedFields>, options?: ChangingOptions<KubeObject, UntypedFields>,
  ): void;
  update<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ChangingFn<T, F>, options?: UpdateOptions<T, F, P>,
  ): void;
  update(
    resource: string, fn: ChangingFn<KubeObject, UntypedFields>, options?: UpdateOptions<KubeObject, UntypedFields>,
  ): void;
  delete<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ChangingFn<T, F>, options?: DeleteOptions<T, F, P>,
  ): void;
  delete(
    resource: string, fn: ChangingFn<KubeObject, UntypedFields>, options?: DeleteOptions<KubeObject, UntypedFields>,
  ): void;
  resume<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ChangingFn<T, F>, options?: ResumeOptions<T, F, P>,
  ): void;
  resume(
    resource: string, fn: ChangingFn<KubeObject, UntypedFields>, options?: ResumeOptions<KubeObject, UntypedFields>,
  ): void;
  field<T extends KubeObject, F extends FieldMap, P extends Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: FieldFn<T, F, P>, options: UpdateOptions<T, F, P> & { field: P },
  ): void;
  field(
    resource: string,
    fn: FieldFn<KubeObject, UntypedFields, string>,
    options: UpdateOptions<KubeObject, UntypedFields> & { field: string },
  ): void;
  event<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: EventFn<T>, options?: EventOptions<T, F, P>,
  ): void;
  event(resource: string, fn: EventFn<KubeObject>, options?: EventOptions<KubeObject, UntypedFields>): void;
  timer<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: TimerFn<T>, options?: TimerOptions<T, F, P>,
  ): void;
  timer(resource: string, fn: TimerFn<KubeObject>, options?: TimerOptions<KubeObject, UntypedFields>): void;
  daemon<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: DaemonFn<T>, options?: DaemonOptions<T, F, P>,
  ): void;
  daemon(resource: string, fn: DaemonFn<KubeObject>, options?: DaemonOptions<KubeObject, UntypedFields>): void;
  validate<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ValidatingFn<T>, options?: WebhookOptions<T, F, P>,
  ): void;
  validate(resource: string, fn: ValidatingFn<KubeObject>, options?: WebhookOptions<KubeObject, UntypedFields>): void;
  mutate<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: MutatingFn<T>, options?: WebhookOptions<T, F, P>,
  ): void;
  mutate(resource: string, fn: MutatingFn<KubeObject>, options?: WebhookOptions<KubeObject, UntypedFields>): void;
  /**
   * An in-memory index named by the handler's id; returns its handle, which carries the types of
   * its keys and values to the handlers that read it: `indices.get(handle)`.
   */
  index<T extends KubeObject, F extends FieldMap, R, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: IndexFn<T, R>, options?: IndexOptions<T, F, P>,
  ): IndexHandle<IndexKeyOf<R>, IndexValueOf<R>>;
  index<R>(
    resource: string, fn: IndexFn<KubeObject, R>, options?: IndexOptions<KubeObject, UntypedFields>,
  ): IndexHandle<IndexKeyOf<R>, IndexValueOf<R>>;
  /**
   * A level-triggered reconciler (controller-runtime's model) beside Kopf's handlers: called with
   * the object's latest state whenever it may need work — when it changes, when a child it owns
   * (`owns`: the child's controller owner reference points to it) or a related object (`watches`,
   * through `map`) changes, every `resync` seconds, and `requeueAfter` seconds after a run that
   * returns `{ requeueAfter }`. Requests are merged per object, and run in the object's queue with
   * Kopf's handlers of that object, never beside them; many changes during a run lead to one more
   * run. An error retries with per-object exponential backoff (`settings.reconciling`), reset by a
   * success; `TemporaryError` sets the next delay; `PermanentError` stops retrying until the object
   * changes. Nothing is stored on the object for it; its `patch` is applied after the call. With
   * `finalizer: true`, the operator's finalizer stays on the objects, the reconciler is called while
   * one is deleted (`deleting: true`), and the object goes once it returns without an error (and
   * Kopf's deletion handlers are done). One reconciler per resource. See docs/reconcile.md.
   */
  reconcile<T extends KubeObject, F extends FieldMap, P extends Keys<F> = Keys<F>>(
    resource: ResourceDescriptor<T, F>, fn: ReconcileFn<T>, options?: ReconcileOptions<T, F, P>,
  ): void;
  reconcile(
    resource: string, fn: ReconcileFn<KubeObject>, options?: ReconcileOptions<KubeObject, UntypedFields>,
  ): void;
  startup(fn: ActivityFn, options?: ActivityOptions): void;
  cleanup(fn: ActivityFn, options?: ActivityOptions): void;
  /** Credentials for the API, instead of the kubeconfig's; called again when they expire or are rejected. */
  login(fn: LoginFn, options?: ActivityOptions): void;
  /** A value for the liveness endpoint (`kopf run --liveness`), under the handler's id. */
  probe(fn: ProbeFn, options?: ActivityOptions): void;
}

export class OperatorRegistry {
  readonly resourceHandlers: ResourceHandler[] = [];
  readonly activityHandlers: ActivityHandler[] = [];
  /** Admission handlers, in registration order (the order they run in for one review). */
  readonly webhookHandlers: WebhookHandler[] = [];
  /** Converters between versions (`on.convert`), a spoke's each, in registration order. */
  readonly conversionHandlers: ConversionHandler[] = [];
  /** What the handlers' own API calls need, as declared with `requires()`, for `kopf rbac`. */
  readonly permissions: DeclaredPermission[] = [];
  readonly on: On;

  constructor() {
    // Arrow functions bound to this registry: `on.create` can be passed around or destructured.
    const changing = (reasons: readonly Reason[] | null, what: string) =>
      (resource: ResourceRef, fn: Function, options: LooseOptions = {}) =>
        this.addChanging(resource, fn, options, reasons, what);
    this.on = {
      create: changing(['create'], 'on.create'),
      update: changing(['update'], 'on.update'),
      delete: changing(['delete'], 'on.delete'),
      resume: changing(['resume'], 'on.resume'),
      field: (resource: ResourceRef, fn: Function, options: LooseOptions) => {
        if (!options?.field) {
          throw new RegistrationError("on.field: the `field` option is required (e.g. `{ field: 'spec.replicas' }`).");
        }
        this.addChanging(resource, fn, options, null, 'on.field');
      },
      event: (resource: ResourceRef, fn: Function, options: LooseOptions = {}) =>
        this.addEvent(resource, fn, options),
      timer: (resource: ResourceRef, fn: Function, options: LooseTimerOptions = {}) =>
        this.addTimer(resource, fn, options),
      daemon: (resource: ResourceRef, fn: Function, options: LooseDaemonOptions = {}) =>
        this.addDaemon(resource, fn, options),
      validate: (resource: ResourceRef, fn: Function, options: LooseOptions = {}) =>
        this.addWebhook('validating', resource, fn, options),
      mutate: (resource: ResourceRef, fn: Function, options: LooseOptions = {}) =>
        this.addWebhook('mutating', resource, fn, options),
      index: (resource: ResourceRef, fn: Function, options: LooseOptions = {}) =>
        this.addIndex(resource, fn, options),
      reconcile: (resource: ResourceRef, fn: Function, options: LooseReconcileOptions = {}) =>
        this.addReconcile(resource, fn, options),
      convert: onConvert(this.conversionHandlers),
      startup: (fn: ActivityFn, options: ActivityOptions = {}) => this.addActivity('startup', fn, options),
      cleanup: (fn: ActivityFn, options: ActivityOptions = {}) => this.addActivity('cleanup', fn, options),
      login: (fn: LoginFn, options: ActivityOptions = {}) =>
        this.addActivity('authentication', fn, options, 'on.login'),
      probe: (fn: ProbeFn, options: ActivityOptions = {}) => this.addActivity('probe', fn, options),
    } as On;
  }

  /**
   * Declares that the handlers call the API on a resource with these verbs (through the `client`
   * in their context), so that `kopf rbac` grants it: `requires(builtins.ConfigMaps, ['create', 'get'])`.
   */
  requires(resource: ResourceRef, verbs: readonly RbacVerb[], options?: PermissionOptions): void {
    this.permissions.push(declaredPermission(resource, verbs, options));
  }

  /** Resources any handler refers to, in registration order, without repeats. */
  resources(): ResourceRef[] {
    const seen = new Set<string>();
    const out: ResourceRef[] = [];
    for (const h of this.resourceHandlers) {
      const { resource } = h;
      const key = typeof resource === 'string' ? resource : `${resource.group}/${resource.version}/${resource.plural}`;
      if (!seen.has(key)) { seen.add(key); out.push(h.resource); }
    }
    return out;
  }

  private addChanging(
    resource: ResourceRef,
    fn: Function,
    options: LooseOptions,
    reasons: readonly Reason[] | null,
    what: string,
  ): void {
    checkResource(resource, what);
    checkFunction(fn, what);
    const isDelete = reasons?.length === 1 && reasons[0] === 'delete';
    const handler: ChangingHandler = {
      kind: 'changing',
      ...handlerBase(fn, options, what),
      resource,
      reasons,
      filters: filtersOf(options, what),
      requiresFinalizer: isDelete && !options.optional,
      deleted: Boolean(options.deleted),
      initial: reasons?.length === 1 && reasons[0] === 'resume',
    };
    const hasOldOrNew = options.old !== undefined || options.new !== undefined;
    if (!reasons?.includes('update') && reasons !== null && hasOldOrNew) {
      const misplaced = '`old`/`new` filters apply only to on.update and on.field.';
      throw new RegistrationError(`${what} '${handler.id}': ${misplaced}`);
    }
    this.checkUnique(handler, what);
    this.resourceHandlers.push(handler);
  }

  private addEvent(resource: ResourceRef, fn: Function, options: LooseOptions): void {
    checkResource(resource, 'on.event');
    checkFunction(fn, 'on.event');
    const handler: EventHandler = {
      kind: 'event',
      ...handlerBase(fn, options, 'on.event'),
      errors: 'ignored',
      resource,
      filters: filtersOf(options, 'on.event'),
    };
    this.checkUnique(handler, 'on.event');
    this.resourceHandlers.push(handler);
  }

  private addTimer(resource: ResourceRef, fn: Function, options: LooseTimerOptions): void {
    const what = 'on.timer';
    const handler: TimerHandler = {
      kind: 'timer', ...this.spawning(resource, fn, options, what),
      interval: seconds(options.interval, 'interval', what),
      idle: seconds(options.idle, 'idle', what),
      sharp: Boolean(options.sharp),
    };
    if (handler.interval === 0) {
      throw new RegistrationError(`${what} '${handler.id}': the \`interval\` must be above 0.`);
    }
    this.checkUnique(handler, what);
    this.resourceHandlers.push(handler);
  }

  private addDaemon(resource: ResourceRef, fn: Function, options: LooseDaemonOptions): void {
    const what = 'on.daemon';
    const handler: DaemonHandler = {
      kind: 'daemon', ...this.spawning(resource, fn, options, what),
      cancellationBackoff: seconds(options.cancellationBackoff, 'cancellationBackoff', what),
      cancellationTimeout: seconds(options.cancellationTimeout, 'cancellationTimeout', what),
      cancellationPolling: seconds(options.cancellationPolling, 'cancellationPolling', what),
    };
    this.checkUnique(handler, what);
    this.resourceHandlers.push(handler);
  }

  /** What timers and daemons share: a resource, the filters of watch-level handlers, retries, a delay. */
  private spawning(
    resource: ResourceRef,
    fn: Function,
    options: LooseTimerOptions & LooseDaemonOptions,
    what: string,
  ) {
    checkResource(resource, what);
    checkFunction(fn, what);
    if (options.old !== undefined || options.new !== undefined) {
      throw new RegistrationError(`${what}: \`old\`/\`new\` filters apply only to on.update and on.field.`);
    }
    return {
      ...handlerBase(fn, options, what), resource, filters: filtersOf(options, what),
      initialDelay: seconds(options.initialDelay, 'initialDelay', what),
    };
  }

  private addWebhook(webhook: WebhookKind, resource: ResourceRef, fn: Function, options: LooseOptions): void {
    const what = webhook === 'validating' ? 'on.validate' : 'on.mutate';
    checkResource(resource, what);
    checkFunction(fn, what);
    const handler: WebhookHandler = {
      kind: 'webhook', webhook, ...handlerBase(fn, options, what), errors: 'permanent', resource,
      filters: filtersOf(options, what),
      ...webhookOptionsOf(options as WebhookOptions<KubeObject, UntypedFields>, what),
    };
    // The id is the webhook's URL path: one id, one handler, whatever the resource.
    if (this.webhookHandlers.some((h) => h.id === handler.id)) {
      throw new RegistrationError(`${what}: two admission handlers share the id '${handler.id}'. ` +
        'Give one of them another name or an explicit `id`.');
    }
    this.webhookHandlers.push(handler);
  }

  private addIndex(resource: ResourceRef, fn: Function, options: LooseOptions): IndexHandle<unknown, unknown> {
    checkResource(resource, 'on.index');
    checkFunction(fn, 'on.index');
    // The id names the index operator-wide, so a field does not suffix it (as in Kopf).
    const id = handlerId(fn, { id: options.id }, 'on.index');
    const handler: IndexingHandler = {
      kind: 'index', ...handlerBase(fn, options, 'on.index'), id, errors: options.errors ?? 'ignored',
      resource, filters: filtersOf(options, 'on.index'),
    };
    if (this.resourceHandlers.some((h) => h.kind === 'index' && h.id === id)) {
      throw new RegistrationError(`on.index: two indexes share the id '${id}'; an index is named by its id. ` +
        'Rename one function or pass a distinct `id`.');
    }
    this.resourceHandlers.push(handler);
    return { id };
  }

  private addReconcile(resource: ResourceRef, fn: Function, options: LooseReconcileOptions): void {
    const handler = reconcilerOf(resource, fn, options);
    const other = this.resourceHandlers.find((h) => h.kind === 'reconcile' && sameResource(h.resource, resource));
    if (other) {
      throw new RegistrationError(`on.reconcile '${handler.id}': ${describe(resource)} has a reconciler already ` +
        `('${other.id}'); one reconciler makes the whole object so.`);
    }
    this.checkUnique(handler, 'on.reconcile');
    this.resourceHandlers.push(handler);
  }

  private addActivity(activity: Activity, fn: ActivityFn, options: ActivityOptions, what = `on.${activity}`): void {
    checkFunction(fn, what);
    const handler: ActivityHandler = { kind: 'activity', activity, ...handlerBase(fn, options, what), fn };
    if (this.activityHandlers.some((h) => h.id === handler.id && h.activity === activity)) {
      throw new RegistrationError(
        `${what}: two activity handlers share the id '${handler.id}'. ` +
        'Give one of them another name or an explicit `id`.');
    }
    this.activityHandlers.push(handler);
  }

  private checkUnique(handler: ResourceHandler, what: string): void {
    // Indexes store no progress: their ids are the indexes' names, checked on their own (addIndex).
    const clash = this.resourceHandlers.find((h) => h.kind !== 'index' && h.id === handler.id &&
      sameResource(h.resource, handler.resource) && !(h.fn === handler.fn));
    if (clash) {
      throw new RegistrationError(
        `${what}: two handlers share the id '${handler.id}' for ${describe(handler.resource)}; ` +
        `their progress would overwrite each other's. Rename one function or pass a distinct \`id\`.`);
    }
  }
}

/**
 * A sub-handler registered from inside `parent` (`register()`, `execute()`): its id is nested
 * under the parent's, it serves the parent's cause, and its retry options and filters are its own.
 */
export function subhandlerOf(
  parent: ChangingHandler,
  fn: Function,
  options: SubhandlerOptions<KubeObject> = {},
): ChangingHandler {
  const what = `register() in '${parent.id}'`;
  checkFunction(fn, what);
  const own = handlerBase(fn, options, what);
  return {
    ...parent, ...own, id: childId(parent.id, own.id),
    filters: filtersOf({
      labels: options.labels,
      annotations: options.annotations,
      when: options.when as HandlerFilters['when'],
    }, what),
    requiresFinalizer: false, initial: false,
  };
}

export function sameResource(a: ResourceRef, b: ResourceRef): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.group === b.group && a.version === b.version && a.plural === b.plural;
}

export function describe(resource: ResourceRef): string {
  if (typeof resource === 'string') return `'${resource}'`;
  return `${resource.plural}.${resource.group || 'core'}/${resource.version}`;
}

/**
 * The default registry is kept on `globalThis` under a registered symbol, not in this module: an
 * operator's files may import another copy of `kopf` than the one that runs them (a global `kopf`
 * command, a linked workspace, a nested `node_modules`), and their handlers must land where
 * `kopf run` looks for them.
 */
const DEFAULT_REGISTRY = Symbol.for('kopf.default-registry');
const shared = globalThis as { [DEFAULT_REGISTRY]?: OperatorRegistry };
export function getDefaultRegistry(): OperatorRegistry { return shared[DEFAULT_REGISTRY] ??= new OperatorRegistry(); }
export function setDefaultRegistry(registry: OperatorRegistry): void { shared[DEFAULT_REGISTRY] = registry; }
