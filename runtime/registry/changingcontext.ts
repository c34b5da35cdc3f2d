/**
 * What changing handlers (create, update, delete, resume, field) get: the resource's context, the
 * attempt, the cause with its diff, and sub-handling. Sub-handlers are registered with the options
 * users write, so this sits above those options (handlers.ts), which sit above the plain contexts.
 */
import type { Diff } from '../structs/diffs.ts';
import type { FieldMap, KubeObject } from '../structs/resources.ts';
import type { InvocationContext, Reason, ResourceContext } from './contexts.ts';
import type { SubhandlerOptions } from './handlers.ts';

/** Registers and runs sub-handlers from inside a changing handler. */
export interface Subhandling<T extends KubeObject, F extends FieldMap> {
  /** Adds a sub-handler with the id `<this handler's id>/<fn name or id>`; run after this handler returns. */
  register(fn: ChangingFn<T, F>, options?: SubhandlerOptions<T>): void;
  /** Runs sub-handlers now, in place; returns when all are done, or throws to retry this handler later. */
  execute(fns: Record<string, ChangingFn<T, F>> | ChangingFn<T, F>[]): Promise<void>;
}

export type ChangingContext<T extends KubeObject, F extends FieldMap> =
  ResourceContext<T> & InvocationContext & Subhandling<T, F> & {
    reason: Reason;
    diff: Diff;
    old: Readonly<Partial<T>> | undefined;
    new: Readonly<Partial<T>> | undefined;
  };

/** A field handler sees the old and new values of its field, and the diff relative to it. */
export type FieldContext<T extends KubeObject, F extends FieldMap, P extends keyof F> =
  Omit<ChangingContext<T, F>, 'old' | 'new'> & {
    old: F[P] | undefined;
    new: F[P] | undefined;
  };

type Result = unknown;
export type ChangingFn<T extends KubeObject, F extends FieldMap> =
  (ctx: ChangingContext<T, F>) => Result | Promise<Result>;
export type FieldFn<T extends KubeObject, F extends FieldMap, P extends keyof F> =
  (ctx: FieldContext<T, F, P>) => Result | Promise<Result>;
