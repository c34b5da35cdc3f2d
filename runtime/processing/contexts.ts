/**
 * Building the context object a handler receives, and calling the handler inside its operator's
 * context (so `info(body, …)` and friends find the right event queue).
 */
import type { KubeObject } from '../structs/resources.ts';
import { resourceClientOf } from '../kube/index.ts';
import { reduceDiff, resolveField, type Diff } from '../structs/diffs.ts';
import type { Patch } from '../structs/patches.ts';
import type { Logger } from '../logging/index.ts';
import { runWithOperatorContext } from '../posting/index.ts';
import type { ChangingContext, Reason, ResourceContext } from '../registry/contexts.ts';
import type { ChangingHandler, SubhandlerOptions } from '../registry/handlers.ts';
import { subhandlerOf } from '../registry/registry.ts';
import type { Attempt, Children } from '../handling/running.ts';
import { runChildren } from '../handling/running.ts';
import { prematches } from '../registry/filters.ts';
import { storableResult } from '../progress/index.ts';
import { OperatorIndexers } from '../indices/indexers.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processing.ts';

const EMPTY: Record<string, never> = Object.freeze({}) as Record<string, never>;
/** For processors made without an operator's indexes (tests, benchmarks). */
const NO_INDICES = new OperatorIndexers([]).indices;

/** The part of the context every resource handler and filter gets. */
export function objectContext(body: KubeObject, memory: ObjectMemory, logger: Logger, patch: Patch<KubeObject>, proc: ResourceProcessor): ResourceContext<KubeObject> {
  const indices = proc.indices ?? NO_INDICES;
  const client = resourceClientOf(proc.client);
  const parts = { resource: proc.resource, patch, logger, memo: memory.memo, client, signal: proc.cancelled, indices };
  return bodyContext(body, parts);
}

type BodyContextParts =
  Pick<ResourceContext<KubeObject>, 'resource' | 'patch' | 'logger' | 'memo' | 'client' | 'signal' | 'indices'>;

/** The same, for handlers that are not run by a resource's processing (admission handlers). */
export function bodyContext(body: KubeObject, parts: BodyContextParts): ResourceContext<KubeObject> {
  const meta = body.metadata ?? {};
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
    ...parts,
  };
}

export interface ChangingInvocation {
  handler: ChangingHandler;
  attempt: Attempt;
  children: Children;
  body: KubeObject;
  reason: Reason;
  diff: Diff;
  old: unknown;
  new: unknown;
  memory: ObjectMemory;
  logger: Logger;
  patch: Patch<KubeObject>;
}

export async function invokeChanging(proc: ResourceProcessor, inv: ChangingInvocation): Promise<unknown> {
  const { handler, children } = inv;
  const field = handler.filters.field;
  const register = (fn: Function, options: SubhandlerOptions<KubeObject> = {}) => {
    const child = subhandlerOf(handler, fn, options);
    // A sub-handler whose own filters do not match is not registered at all, as in Kopf.
    if (prematches(child.filters, inv.body, { ...ctx, old: inv.old, new: inv.new, diff: inv.diff })) children.registered.push(child);
  };
  const ctx: ChangingContext<KubeObject, Record<string, unknown>> = {
    ...objectContext(inv.body, inv.memory, inv.logger, inv.patch, proc),
    ...inv.attempt,
    param: handler.param,
    reason: inv.reason,
    // Field handlers see their field's values and the diff relative to it, as Kopf does.
    diff: field ? reduceDiff(inv.diff, field) : inv.diff,
    old: (field ? resolveField(inv.old, field) : inv.old) as Partial<KubeObject> | undefined,
    new: (field ? resolveField(inv.new, field) : inv.new) as Partial<KubeObject> | undefined,
    register,
    execute: async (fns) => {
      const entries = Array.isArray(fns) ? fns.map((fn) => [undefined, fn] as const) : Object.entries(fns);
      children.registered.length = 0;
      for (const [id, fn] of entries) register(fn, id === undefined ? {} : { id });
      await runChildren(children);
    },
  };
  const result = await runWithOperatorContext({ settings: proc.settings, poster: proc.poster, logger: inv.logger, body: inv.body }, () => (handler.fn as (c: typeof ctx) => unknown)(ctx));
  return storableResult(result);
}
