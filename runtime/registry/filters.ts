/**
 * Whether a handler's filters accept an object (and, for changing causes, a change).
 * Kopf's rules: labels/annotations AND over keys; fields and values for changing causes are
 * satisfied by the old or the new state; `when` is evaluated last, as the most expensive.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../structs/resources.ts';
import { resolveField } from '../structs/diffs.ts';
import type { FilterContext } from './contexts.ts';
import type { HandlerFilters, MetaFilter } from './handlers.ts';
import { ABSENT, PRESENT } from './markers.ts';

type MetaFilters = Record<string, MetaFilter<KubeObject>>;

function metaMatches(
  values: Record<string, string> | undefined,
  filters: MetaFilters | undefined,
  ctx: FilterContext<KubeObject>,
): boolean {
  if (!filters) return true;
  for (const [key, filter] of Object.entries(filters)) {
    const value = values?.[key];
    if (!valueMatches(value, filter, ctx)) return false;
  }
  return true;
}

function valueMatches(value: unknown, filter: unknown, ctx: FilterContext<KubeObject>): boolean {
  if (filter === PRESENT) return value !== undefined;
  if (filter === ABSENT) return value === undefined;
  if (typeof filter === 'function') {
    return Boolean((filter as (v: unknown, c: FilterContext<KubeObject>) => unknown)(value, ctx));
  }
  return value !== undefined && isDeepStrictEqual(value, filter);
}

/**
 * Whether `prematches` may look at the change (reason, diff, old, new): a `when` callback, a
 * callback on a label or annotation, or a field value (matched against the old and new essences).
 * Without such filters, whether a handler is of interest can be known before the change is read.
 */
export function seesChange(filters: HandlerFilters): boolean {
  const callback = (meta: MetaFilters | undefined) => Object.values(meta ?? {}).some((f) => typeof f === 'function');
  return Boolean(filters.when)
    || Boolean(filters.field && filters.has.value)
    || callback(filters.labels)
    || callback(filters.annotations);
}

/**
 * Filters that do not depend on the kind of change: decides whether the object is of interest
 * at all (stealth mode) and whether a delete handler demands a finalizer for it. A field value
 * filter is satisfied by the old or the new state (`ctx.old`/`ctx.new`, the essences), as in Kopf.
 */
export function prematches(filters: HandlerFilters, body: KubeObject, ctx: FilterContext<KubeObject>): boolean {
  const meta = body.metadata ?? {};
  if (!metaMatches(meta.labels, filters.labels, ctx)) return false;
  if (!metaMatches(meta.annotations, filters.annotations, ctx)) return false;
  if (filters.field && filters.has.value) {
    const states = ctx.old === undefined && ctx.new === undefined ? [body] : [ctx.old, ctx.new];
    if (!states.some((state) => valueMatches(valueAt(state, filters.field!), filters.value, ctx))) return false;
  }
  if (filters.when && !filters.when(ctx)) return false;
  return true;
}

/** Full match for a changing cause: old and new are the essences (or undefined when absent). */
export function matchesChange(
  filters: HandlerFilters,
  body: KubeObject,
  old: unknown,
  new_: unknown,
  requireChange: boolean,
  ctx: FilterContext<KubeObject>,
): boolean {
  const meta = body.metadata ?? {};
  if (!metaMatches(meta.labels, filters.labels, ctx)) return false;
  if (!metaMatches(meta.annotations, filters.annotations, ctx)) return false;
  if (filters.field) {
    const before = valueAt(old, filters.field);
    const after = valueAt(new_, filters.field);
    if (before === undefined && after === undefined) return false;
    if (requireChange && isDeepStrictEqual(before, after)) return false;
    const valueMatched = valueMatches(before, filters.value, ctx) || valueMatches(after, filters.value, ctx);
    if (filters.has.value && !valueMatched) return false;
    if (filters.has.old && !valueMatches(before, filters.old, ctx)) return false;
    if (filters.has.new && !valueMatches(after, filters.new, ctx)) return false;
  }
  if (filters.when && !filters.when(ctx)) return false;
  return true;
}

/** Match for watch-level handlers (events): the field must be present unless a value filter says otherwise. */
export function matchesBody(filters: HandlerFilters, body: KubeObject, ctx: FilterContext<KubeObject>): boolean {
  const meta = body.metadata ?? {};
  if (!metaMatches(meta.labels, filters.labels, ctx)) return false;
  if (!metaMatches(meta.annotations, filters.annotations, ctx)) return false;
  if (filters.field) {
    const value = valueAt(body, filters.field);
    if (filters.has.value ? !valueMatches(value, filters.value, ctx) : value === undefined) return false;
  }
  if (filters.when && !filters.when(ctx)) return false;
  return true;
}

/** A field's value for filtering: `null` counts as absent, as in Kopf. */
function valueAt(obj: unknown, path: readonly string[]): unknown {
  return resolveField(obj, path) ?? undefined;
}
