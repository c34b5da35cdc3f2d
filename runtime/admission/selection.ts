/**
 * Which admission handlers review a request, as Kopf chooses them: those of the request's
 * resource; only the one the URL names, if it names one; for DELETE, no mutating handler unless
 * it serves DELETE alone; those of the request's subresource (or of all, `'*'`) and operation;
 * and those whose filters accept the object.
 */
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { FilterContext } from '../registry/contexts.ts';
import { matchesBody } from '../registry/filters.ts';
import type { WebhookHandler } from '../registry/webhooks.ts';
import type { ReviewRequest } from './reviews.ts';

/** An admission handler with the resource it serves, resolved (a name found by discovery). */
export interface ResolvedWebhook {
  handler: WebhookHandler;
  resource: ResourceDescriptor;
}

/** The handlers of the request's resource, or `[]` if it has none. */
export function webhooksOf(webhooks: readonly ResolvedWebhook[], request: ReviewRequest): ResolvedWebhook[] {
  const { group, version, resource } = request.resource;
  return webhooks.filter(({ resource: r }) => r.group === group && r.version === version && r.plural === resource);
}

/** Those of `candidates` that review this request, in registration order. */
export function selectHandlers(
  candidates: readonly ResolvedWebhook[], request: ReviewRequest, webhook: string | undefined,
  ctx: FilterContext<KubeObject>,
): WebhookHandler[] {
  return candidates.map((w) => w.handler).filter((h) =>
    (webhook === undefined || h.id === webhook) &&
    servesOperation(h, request) &&
    (h.subresource === '*' || h.subresource === request.subresource) &&
    matchesBody(h.filters, request.body, ctx));
}

function servesOperation(handler: WebhookHandler, request: ReviewRequest): boolean {
  const { operations } = handler;
  // Mutating a body that is being deleted is pointless, unless the handler says it is for deletions only.
  if (handler.webhook === 'mutating' && request.operation === 'DELETE') {
    return operations?.length === 1 && operations[0] === 'DELETE';
  }
  return operations === null || operations.includes(request.operation);
}
