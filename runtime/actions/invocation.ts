/**
 * Invoking a handler of any kind (as Kopf's kopf/_core/actions/invocation.py): the context object
 * it receives, built from its object and the served resource, and the call itself inside the
 * operator's context (so that `info(body, …)` and friends find the right event queue). Resource
 * handlers, event handlers, timers, daemons, index functions and admission handlers all go here.
 */
import type { KubeObject } from '../structs/resources.ts';
import { resourceClientOf } from '../kube/index.ts';
import type { Patch } from '../structs/patches.ts';
import type { Logger } from '../logging/index.ts';
import { runWithOperatorContext } from '../posting/index.ts';
import type { Memo, ResourceContext } from '../registry/contexts.ts';
import { storableResult } from '../progress/index.ts';
import { OperatorIndexers } from '../indices/indexers.ts';
import type { InvocationScope, ResourceScope } from './scope.ts';
import type { HandlerKind } from '../observation/metrics.ts';
import { handlerObserver, type HandlerObserver } from '../handling/observers.ts';
import { resourceLabel } from '../observation/resource-names.ts';
import { clockNow } from '../structs/clock.ts';

const EMPTY: Record<string, never> = Object.freeze({}) as Record<string, never>;
/** For scopes made without an operator's indexes (tests, benchmarks). */
const NO_INDICES = new OperatorIndexers([]).indices;

/**
 * The part of the context every resource handler and filter gets. A processing cycle builds it
 * once per event; each handler's own parts (its retry, its `param`) are layered over it.
 */
export function objectContext(
  body: KubeObject, memory: { readonly memo: Memo }, logger: Logger, patch: Patch<KubeObject>, scope: ResourceScope,
): ResourceContext<KubeObject> {
  const indices = scope.indices ?? NO_INDICES;
  const client = resourceClientOf(scope.client);
  const { resource, cancelled: signal } = scope;
  return bodyContext(body, { resource, patch, logger, memo: memory.memo, client, signal, indices });
}

type BodyContextParts =
  Pick<ResourceContext<KubeObject>, 'resource' | 'patch' | 'logger' | 'memo' | 'client' | 'signal' | 'indices'>;

/** The same, for handlers that are not run by a resource's processing (admission handlers). */
export function bodyContext(body: KubeObject, parts: BodyContextParts): ResourceContext<KubeObject> {
  const meta = body.metadata ?? {};
  // One literal of one shape: the contexts layered over it are copied by the same fast path.
  return {
    body,
    spec: (body.spec ?? EMPTY) as ResourceContext<KubeObject>['spec'],
    status: (body.status ?? EMPTY) as ResourceContext<KubeObject>['status'],
    meta,
    name: meta.name ?? '',
    namespace: meta.namespace ?? null,
    uid: meta.uid ?? '',
    labels: meta.labels ?? EMPTY,
    annotations: meta.annotations ?? EMPTY,
    resource: parts.resource,
    patch: parts.patch,
    logger: parts.logger,
    memo: parts.memo,
    client: parts.client,
    signal: parts.signal,
    indices: parts.indices,
    now: clockNow,
  };
}

/** Where the runs of a resource's handlers of this kind are reported: nowhere without metrics. */
export function observerOf(
  scope: Pick<ResourceScope, 'resource' | 'metrics'>, kind: HandlerKind,
): HandlerObserver | undefined {
  // Bound to where the resource is served now: a resource served elsewhere reports under its new name.
  return scope.metrics && handlerObserver(scope.metrics, resourceLabel(scope.resource), kind);
}

/** Calls the handler with its context, in the operator's context for its object; returns what it returned. */
export function invokeHandler<C>(
  scope: InvocationScope, logger: Logger, body: KubeObject, fn: Function, ctx: C,
): Promise<unknown> {
  const context = { settings: scope.settings, poster: scope.poster, logger, body };
  return runWithOperatorContext(context, () => called(fn as (c: C) => unknown, ctx));
}

/** The function's result as a promise, and what it throws as a rejection: an async wrapper without its frame. */
function called<C>(fn: (c: C) => unknown, ctx: C): Promise<unknown> {
  try {
    return Promise.resolve(fn(ctx));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** The same, for handlers whose result is stored on the object: the result as it can be stored. */
export async function invokeForResult<C>(
  scope: InvocationScope, logger: Logger, body: KubeObject, fn: Function, ctx: C,
): Promise<unknown> {
  return storableResult(await invokeHandler(scope, logger, body, fn, ctx));
}
