/**
 * The public facade of `kopf`: everything an operator imports, and nothing else.
 */
import { getDefaultRegistry, type On } from './registry/registry.ts';
import type { ResourceRef } from './registry/handlers.ts';
import type { PermissionOptions, RbacVerb } from './registry/permissions.ts';

export type {
  FieldMap, FieldsOf, InputOf, JsonObject, JsonPrimitive, JsonValue, KubeObject, ManagedFieldsEntry,
  MergePatch, ObjectMeta, ObjectOf, OwnerReference, PrinterColumn, ResourceDescriptor, UntypedFields,
} from './structs/resources.ts';
export { apiVersionOf, resourceName, resourcePath } from './structs/resources.ts';
export * as builtins from './structs/builtins.ts';
export type * from './structs/kubetypes.ts';
export {
  HandlerRetriesError, HandlerTimeoutError, PermanentError, TemporaryError, type ErrorsMode,
} from './structs/errors.ts';

export { setCondition, type ConditionInput } from './conditions/conditions.ts';

// Handlers and their registration.
export { ABSENT, PRESENT } from './registry/markers.ts';
export { OperatorRegistry, getDefaultRegistry, setDefaultRegistry, type On } from './registry/registry.ts';
export { RegistrationError, type HandlerId } from './registry/ids.ts';
export type {
  Activity, ActivityContext, ActivityFn, DaemonContext, EventContext, FilterContext, LoginFn, Memo, ProbeFn, Reason,
  ResourceContext, SpawningContext, SpecOf, StatusOf, Stopped, StopReason, TimerContext,
} from './registry/contexts.ts';
export type { ChangingContext, FieldContext } from './registry/changingcontext.ts';
export type {
  ActivityOptions, ChangingOptions, DaemonOptions, DeleteOptions, EventOptions, ResumeOptions, RetryOptions,
  TimerOptions, UpdateOptions,
} from './registry/handlers.ts';
export { lifecycles, type Lifecycle } from './handling/lifecycles.ts';
export type {
  AdmissionInfo, MutatingContext, MutatingFn, Operation, UserInfo, ValidatingContext, ValidatingFn, WebhookKind,
  WebhookOptions,
} from './registry/webhooks.ts';
export { AdmissionError } from './admission/admission-errors.ts';
export { WebhookError } from './config/admission.ts';
export { WebhookServer, type WebhookServerOptions } from './webhooks/server.ts';
export type {
  AdmissionServer, WebhookClientConfig, WebhookReply, WebhookRequest, WebhookResponder,
} from './config/admission.ts';
export type { DeclaredPermission, PermissionOptions, RbacVerb } from './registry/permissions.ts';
export type { Index, IndexHandle, IndexKey, Indices, Store } from './indices/indices.ts';
export type { IndexContext, IndexFn } from './registry/contexts.ts';
export type { IndexOptions } from './registry/handlers.ts';
export type { ReconcileContext, ReconcileFn, ReconcileResult } from './registry/contexts.ts';
export type { Converters } from './registry/conversions.ts';
export type { ReconcileOptions, ReconcileRequest, RelatedObject, WatchedResource } from './registry/handlers.ts';

/**
 * Registers handlers in the default registry (the one `kopf run` serves), as Kopf's decorators do:
 * `on.create(KopfExample, async function create_fn({ spec, logger }) { … })`.
 * An embedded operator with its own registry uses `registry.on` instead.
 */
export const on: On = {
  create: delegate('create'), update: delegate('update'), delete: delegate('delete'), resume: delegate('resume'),
  field: delegate('field'), event: delegate('event'), timer: delegate('timer'), daemon: delegate('daemon'),
  startup: delegate('startup'),
  cleanup: delegate('cleanup'),
  validate: delegate('validate'),
  mutate: delegate('mutate'),
  login: delegate('login'), probe: delegate('probe'),
  index: delegate('index'), reconcile: delegate('reconcile'), convert: delegate('convert'),
};

/**
 * Declares, in the default registry, an API permission that the handlers' own calls need (through
 * `client`), for `kopf rbac`: `requires(builtins.ConfigMaps, ['create', 'get', 'patch', 'delete'])`.
 */
export function requires(resource: ResourceRef, verbs: readonly RbacVerb[], options?: PermissionOptions): void {
  getDefaultRegistry().requires(resource, verbs, options);
}

/** Looks the default registry up at call time, so `setDefaultRegistry()` takes effect for `on`. */
function delegate<K extends keyof On>(name: K): On[K] {
  return ((...args: unknown[]) => (getDefaultRegistry().on[name] as (...a: unknown[]) => unknown)(...args)) as On[K];
}

// Settings, logging, events.
export { defaultSettings, DEFAULT_FINALIZER } from './config/defaults.ts';
export type { OperatorSettings, SettingsOverrides } from './config/settings.ts';
export { SettingsError } from './config/validation.ts';
export {
  AnnotationsDiffBaseStorage,
  AnnotationsProgressStorage,
  MultiDiffBaseStorage,
  MultiProgressStorage,
  SmartProgressStorage,
  StatusDiffBaseStorage, StatusProgressStorage, type DiffBaseStorage, type ProgressStorage,
} from './progress/index.ts';
export type { Diff, DiffItem, DiffOp } from './structs/diffs.ts';
export { systemClock, type Clock, type ClockTimer } from './structs/clock.ts';
export type { Patch } from './structs/patches.ts';
export {
  CRITICAL, DEBUG, ERROR, INFO, WARNING, LogConfig, Logger, captureLogs, streamSink,
  type LogCapture, type LogFormat, type LogRecord, type LogSink, type StreamSinkOptions, type Verbosity,
} from './logging/index.ts';
export { KubeClient, KubeConfigError, LoginError, type ConnectionInfo, type KubeClientOptions } from './kube/index.ts';
export { loginWithKubeconfig } from './activities/authentication.ts';

// Children and the client for handlers.
export {
  adjustNamespace, adopt, appendOwnerReference, buildOwnerReference, harmonizeNaming, label, removeOwnerReference,
  type Adopted, type AdoptOptions, type LabelOptions, type NamespaceOptions, type NamingOptions, type Owner,
  type OwnerReferenceOptions,
} from './hierarchies/index.ts';
export {
  AlreadyExistsError, ApiConnectionError, ApiError, AuthorizationError, ConflictError, ForbiddenError, InvalidError,
  NotFoundError, ResourceClient,
  type ApplyOptions,
  type CreateOptions,
  type DeleteObjectOptions,
  type GetOptions,
  type JsonPatchOp,
  type JsonPatchOptions,
  type ListObjectsOptions, type ListResult, type MergePatchOptions, type StatusPart, type Where,
} from './kube/index.ts';
export { event, exception, info, warn } from './posting/index.ts';

// Running.
export { Operator, STOP_ANNOUNCED, operator, type OperatorOptions } from './operator/operator.ts';
export { guardProcess } from './operator/guard.ts';
