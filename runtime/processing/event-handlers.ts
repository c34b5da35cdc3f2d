/**
 * Watch-level handlers (`on.event`): called for every event of a matching object, listing
 * included; nothing is persisted, errors are logged and ignored, never retried.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Logger } from '../logging/index.ts';
import type { EventHandler } from '../registry/handlers.ts';
import type { EventContext, ResourceContext } from '../registry/contexts.ts';
import { matchesBody } from '../registry/filters.ts';
import { executeOnce } from '../handling/execution.ts';
import { Timestamp, deliverResult } from '../progress/index.ts';
import type { ResourceProcessor } from './processor.ts';
import type { RawEvent } from '../actions/scope.ts';
import { observerOf, invokeForResult } from '../actions/invocation.ts';

/** Runs the matching handlers with the event's context; their results go into its patch. */
export async function runEventHandlers(
  proc: ResourceProcessor, handlers: readonly EventHandler[], event: RawEvent, logger: Logger,
  context: ResourceContext<KubeObject>,
): Promise<void> {
  const type = event.type;
  const ctx: EventContext<KubeObject> = { ...context, type, event: { type, object: event.object }, param: undefined };
  const observer = observerOf(proc, 'event');
  for (const handler of handlers) {
    if (!matchesBody(handler.filters, event.object, ctx)) continue;
    const { defaultBackoff } = proc.settings.execution;
    const options = { now: Timestamp.now(), defaultBackoff, logger, cancelled: proc.cancelled, observer };
    const executed = await executeOnce(handler, undefined, options, () =>
      invokeForResult(proc, logger, event.object, handler.fn, { ...ctx, param: handler.param }));
    deliverResult(context.patch, handler.id, executed.outcome);
  }
}
