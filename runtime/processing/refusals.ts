/**
 * What stops the handling of an object until someone acts — a record that cannot be read, a write
 * too large for the API server — is said where its owner looks: in the log, and in an `Error`
 * event on the object (`kubectl describe`). Kopf posts object logs as events no more (since 1.44),
 * so this one is posted by itself, unless the settings post every log record already.
 */
import { ERROR, buildObjectReference, type Logger } from '../logging/index.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { InvocationScope } from '../actions/scope.ts';

/** Logs the message as an error about the object, and posts it as an event with this reason. */
export function reportRefusal(
  proc: InvocationScope, body: KubeObject, logger: Logger, reason: string, message: string,
): void {
  logger.error(message);
  const posting = proc.settings.posting;
  if (!posting.enabled || posting.loggers || posting.level > ERROR) return;
  proc.poster.enqueue({ ref: buildObjectReference(body), type: 'Error', reason, message });
}
