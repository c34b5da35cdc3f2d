/**
 * `event()`, `info()`, `warn()`, `exception()`: Kubernetes Events about one or more objects,
 * queued in the current operator's poster (see operator-context.ts) and posted in the background.
 *
 * As in Kopf, `event()` checks only `posting.enabled`, and the others also `posting.level`
 * (info ≥ 20, warn ≥ 30, exception ≥ 40 must pass). Unlike Kopf 1.44, `warn()` respects
 * `posting.enabled` too: Kopf skips that check for warnings only, which reads as an oversight,
 * and an operator with posting disabled (e.g. without RBAC for events) should post nothing.
 */
import { ERROR, INFO, WARNING } from '../logging/levels.ts';
import { buildObjectReference } from '../logging/log-records.ts';
import type { KubeObject } from '../structs/resources.ts';
import { requireOperatorContext } from './operator-context.ts';
import type { EventType } from './events.ts';

/** One object, or a list (or any iterable, nested) of them. */
export type EventObjects = KubeObject | Iterable<EventObjects>;

function* walk(objs: EventObjects): Generator<KubeObject> {
  if (objs !== null && typeof objs === 'object' && Symbol.iterator in objs) {
    for (const item of objs as Iterable<EventObjects>) yield* walk(item);
  } else {
    yield objs as KubeObject;
  }
}

function post(
  what: string,
  objs: EventObjects,
  least: number | null,
  type: EventType,
  reason: string,
  message: string,
): void {
  const { settings, poster } = requireOperatorContext(what);
  if (!settings.posting.enabled || (least !== null && settings.posting.level > least)) return;
  for (const obj of walk(objs)) poster.enqueue({ ref: buildObjectReference(obj), type, reason, message });
}

export function event(objs: EventObjects, options: { type: EventType; reason: string; message?: string }): void {
  post('event()', objs, null, options.type, options.reason, options.message ?? '');
}

export function info(objs: EventObjects, options: { reason: string; message?: string }): void {
  post('info()', objs, INFO, 'Normal', options.reason, options.message ?? '');
}

export function warn(objs: EventObjects, options: { reason: string; message?: string }): void {
  post('warn()', objs, WARNING, 'Warning', options.reason, options.message ?? '');
}

/**
 * An `Error` event about a failure: the reason defaults to the error's class name, and the
 * message is `"<message> <error's message>"` (either part alone when the other is empty).
 */
export function exception(
  objs: EventObjects,
  options: { reason?: string; message?: string; error?: unknown } = {},
): void {
  const { error, message = '' } = options;
  const detail = error === undefined ? '' : error instanceof Error ? error.message : String(error);
  const text = message && detail ? `${message} ${detail}` : detail || message;
  post('exception()', objs, ERROR, 'Error', options.reason || errorClassName(error), text);
}

function errorClassName(error: unknown): string {
  if (error instanceof Error) return error.name !== 'Error' ? error.name : error.constructor.name;
  return 'Error';
}
