/**
 * Watch-level handlers (`on.event`): called for every event of a matching object, listing
 * included; nothing is persisted, errors are logged and ignored, never retried.
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Patch } from '../structs/patches.ts';
import type { Logger } from '../logging/index.ts';
import type { EventHandler } from '../registry/handlers.ts';
import type { EventContext } from '../registry/contexts.ts';
import { matchesBody } from '../registry/filters.ts';
import { executeOnce } from '../handling/execution.ts';
import { Timestamp, deliverResult } from '../progress/index.ts';
import type { ObjectMemory } from './memories.ts';
import type { ResourceProcessor } from './processor.ts';
import type { RawEvent } from '../actions/scope.ts';
import { invokeForResult, objectContext } from '../actions/invocation.ts';

export async function runEventHandlers(
  proc: ResourceProcessor, handlers: readonly EventHandler[], event: RawEvent, memory: ObjectMemory, logger: Logger,
  patch: Patch<KubeObject>,
): Promise<void> {
  const type = event.type;
  const base = objectContext(event.object, memory, logger, patch, proc);
  const ctx: EventContext<KubeObject> = { ...base, type, event: { type, object: event.object }, param: undefined };
  for (const handler of handlers) {
    if (!matchesBody(handler.filters, event.object, ctx)) continue;
    const { defaultBackoff } = proc.settings.execution;
    const options = { now: Timestamp.now(), defaultBackoff, logger, cancelled: proc.cancelled };
    const executed = await executeOnce(handler, undefined, options, () =>
      invokeForResult(proc, logger, event.object, handler.fn, { ...ctx, param: handler.param }));
    deliverResult(patch, handler.id, executed.outcome);
  }
}
