/**
 * What a registration is given, checked and normalised: the handler's function, its resource,
 * its durations and its filters. Each refusal is a `RegistrationError` that names the registration,
 * raised when the operator's code registers, not when an event comes.
 */
import type { KubeObject, UntypedFields } from '../structs/resources.ts';
import type { DaemonOptions, HandlerFilters, RetryOptions, TimerOptions } from './handlers.ts';
import { handlerId, RegistrationError } from './ids.ts';

/** The options of any registration, before they are checked (the typed `On` is for callers). */
export type LooseOptions = RetryOptions & {
  labels?: HandlerFilters['labels']; annotations?: HandlerFilters['annotations']; when?: HandlerFilters['when'];
  field?: string; value?: unknown; old?: unknown; new?: unknown; optional?: boolean; deleted?: boolean;
};
export type LooseTimerOptions = LooseOptions & TimerOptions<KubeObject, UntypedFields>;
export type LooseDaemonOptions = LooseOptions & DaemonOptions<KubeObject, UntypedFields>;

/** What every handler has: its id, function, and retry options. */
export function handlerBase(fn: Function, options: LooseOptions, what: string) {
  return {
    id: handlerId(fn, options, what),
    fn,
    param: options.param,
    errors: options.errors,
    timeout: options.timeout,
    retries: options.retries,
    backoff: options.backoff,
  };
}

/** The filters of `options`, refused when they contradict each other or name no value. */
export function filtersOf(options: LooseOptions, what: string): HandlerFilters {
  const has = { value: 'value' in options, old: 'old' in options, new: 'new' in options };
  if (!options.field && (has.value || has.old || has.new)) {
    throw new RegistrationError(`${what}: \`value\`, \`old\` and \`new\` need a \`field\`.`);
  }
  if (has.value && (has.old || has.new)) {
    throw new RegistrationError(`${what}: \`value\` cannot be combined with \`old\`/\`new\`.`);
  }
  for (const [kind, filters] of [['labels', options.labels], ['annotations', options.annotations]] as const) {
    for (const [key, value] of Object.entries(filters ?? {})) {
      if (value === null || value === undefined) {
        const instead = 'use PRESENT, ABSENT, a string or a function';
        throw new RegistrationError(`${what}: the ${kind} filter '${key}' is ${value}; ${instead}.`);
      }
    }
  }
  return {
    labels: options.labels, annotations: options.annotations, when: options.when,
    field: options.field ? options.field.split('.') : undefined,
    value: options.value, old: options.old, new: options.new, has,
  };
}

/** A duration option: absent, or a finite number of seconds, not negative. */
export function seconds(value: unknown, name: string, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RegistrationError(`${what}: \`${name}\` must be a number of seconds (0 or more), got ${String(value)}.`);
  }
  return value;
}

export function checkFunction(fn: unknown, what: string): void {
  if (typeof fn !== 'function') {
    throw new RegistrationError(`${what}: the handler must be a function, got ${typeof fn}.`);
  }
}

export function checkResource(resource: unknown, what: string): void {
  const valid = typeof resource === 'string'
    ? resource.trim() !== ''
    : typeof resource === 'object' && resource !== null && 'plural' in resource;
  if (!valid) {
    const expected = "a descriptor (e.g. a generated `KopfExample`) or a name such as 'kopfexamples'";
    throw new RegistrationError(`${what}: the resource must be ${expected}.`);
  }
}
