/**
 * Admission handlers (`on.validate`, `on.mutate`): their options, their records in the registry,
 * and what they receive. They answer the API server's admission reviews, before an object is
 * stored: nothing is retried and nothing is written to the object by the framework.
 */
import type { Diff } from '../structs/diffs.ts';
import type { FieldMap, KubeObject } from '../structs/resources.ts';
import type { InvocationContext, ResourceContext } from './contexts.ts';
import type { FieldOptions, FilterOptions, HandlerBase, HandlerFilters, ResourceRef } from './handlers.ts';
import { RegistrationError } from './ids.ts';

/** Which admission a handler takes part in: the verdict alone, or changes to the object too. */
export type WebhookKind = 'validating' | 'mutating';

/** The operations an admission review is sent for. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
export const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export type WebhookOptions<T extends KubeObject, F extends FieldMap, P extends keyof F & string = keyof F & string> =
  FilterOptions<T> & FieldOptions<T, F, P> & {
    /** Handler id; defaults to the function's name. It is also the last segment of the webhook's URL path. */
    id?: string;
    param?: unknown;
    /** The operations to serve; all by default. */
    operations?: readonly Operation[];
    /** One operation; Kopf's older spelling of `operations: [op]`. */
    operation?: Operation;
    /** `null` (the default): the object itself; a name (`'status'`, `'scale'`): that subresource only; `'*'`: both. */
    subresource?: string | null;
    /** Keep this handler's webhook in the managed configurations when the operator exits. */
    persistent?: boolean;
    /** The handler has side effects the API server must know of: `sideEffects: NoneOnDryRun` rather than `None`. */
    sideEffects?: boolean;
    /** When the operator cannot be reached, admit the request (`failurePolicy: Ignore`) rather than refuse it. */
    ignoreFailures?: boolean;
    /**
     * Seconds the API server waits for the webhook (its `timeoutSeconds`, 1–30; 30 by default). A handler
     * still running when that time is nearly over fails, and the request is refused with that said.
     */
    timeout?: number;
  };

export interface WebhookHandler extends HandlerBase {
  kind: 'webhook';
  webhook: WebhookKind;
  resource: ResourceRef;
  filters: HandlerFilters;
  /** `null`: all operations. */
  operations: readonly Operation[] | null;
  subresource: string | null;
  persistent: boolean;
  sideEffects: boolean;
  ignoreFailures: boolean;
  timeout: number;
}

/** What the API server says about the request under review, as admission handlers receive it. */
export interface AdmissionInfo {
  operation: Operation;
  /** The request is a dry run: the handler must not change anything outside the object either. */
  dryrun: boolean;
  /** The subresource under review (`'status'`, `'scale'`), or `null` for the object itself. */
  subresource: string | null;
  /** Who makes the request, as the API server authenticated them (`username`, `uid`, `groups`, `extra`). */
  userinfo: UserInfo;
  /** Messages returned to the client as admission warnings (`kubectl` prints them); append to it. */
  warnings: string[];
  /** The webhook request's HTTP headers (of the API server's call, not of the user's request). */
  headers: Readonly<Record<string, string>>;
  /** The API server's client certificate, when it presented one (`subject`, `issuer`, …); `{}` otherwise. */
  sslpeer: Readonly<Record<string, unknown>>;
  diff: Diff;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * A validating handler's context. The object is the one under review (for DELETE, the stored one);
 * `old` is the stored object on UPDATE and DELETE. Throwing refuses the request.
 */
export type ValidatingContext<T extends KubeObject> =
  Omit<ResourceContext<T>, 'patch'> & InvocationContext & AdmissionInfo & {
    old: Readonly<T> | undefined;
    new: Readonly<T> | undefined;
  };

/** A mutating handler's context: as a validating one's, and `patch`, whose changes are applied to the object. */
export type MutatingContext<T extends KubeObject> = ResourceContext<T> & InvocationContext & AdmissionInfo & {
  old: Readonly<T> | undefined;
  new: Readonly<T> | undefined;
};

export type ValidatingFn<T extends KubeObject> = (ctx: ValidatingContext<T>) => unknown;
export type MutatingFn<T extends KubeObject> = (ctx: MutatingContext<T>) => unknown;

/** Webhooks accept what Kubernetes accepts for `timeoutSeconds`; Kopf always asks for the most. */
const MAX_TIMEOUT = 30;

/** The webhook-specific part of a handler record, from the options as the user wrote them. */
export function webhookOptionsOf(options: WebhookOptions<KubeObject, FieldMap>, what: string) {
  if (options.operation !== undefined && options.operations !== undefined) {
    throw new RegistrationError(`${what}: pass either \`operation\` or \`operations\`, not both.`);
  }
  const operations = options.operation !== undefined ? [options.operation] : options.operations ?? null;
  if (operations !== null && operations.length === 0) {
    throw new RegistrationError(`${what}: \`operations\` is empty; leave it out to serve all operations.`);
  }
  const unknown = (operations ?? []).filter((op) => !OPERATIONS.includes(op));
  if (unknown.length) {
    throw new RegistrationError(`${what}: unknown operations ${unknown.join(', ')}; use ${OPERATIONS.join(', ')}.`);
  }
  const timeout = options.timeout ?? MAX_TIMEOUT;
  if (!(timeout >= 1 && timeout <= MAX_TIMEOUT)) {
    const allowed = `from 1 to ${MAX_TIMEOUT} seconds, as Kubernetes allows`;
    throw new RegistrationError(`${what}: \`timeout\` must be ${allowed}; got ${timeout}.`);
  }
  return {
    operations,
    subresource: options.subresource ?? null,
    persistent: Boolean(options.persistent),
    sideEffects: Boolean(options.sideEffects),
    ignoreFailures: Boolean(options.ignoreFailures),
    timeout,
  };
}
