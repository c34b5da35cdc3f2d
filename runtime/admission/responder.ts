/**
 * Answering one webhook request: the review is read, its handlers chosen and run one after another
 * in registration order (as Kopf runs them, all at once in one pass, none retried), and their
 * verdicts, warnings and changes are put into one response. The mutating handlers share one patch:
 * a later handler's write to a field wins over an earlier one's; the patch goes back as one JSON
 * patch against the object under review.
 *
 * A bad webhook request is answered with an HTTP error saying what is wrong (the API server then
 * applies the webhook's failure policy); a handler that fails refuses the request with its message.
 */
import { HandlerTimeoutError, PermanentError, thrownText } from '../structs/errors.ts';
import { diff } from '../structs/diffs.ts';
import { Patch, isEmptyPatch, toJsonPatch } from '../structs/patches.ts';
import type { KubeObject } from '../structs/resources.ts';
import { resourceClientOf, type KubeClient } from '../kube/index.ts';
import type { OperatorSettings } from '../config/settings.ts';
import { WebhookError, statusReply, type WebhookRequest, type WebhookResponder } from '../config/admission.ts';
import type { Logger } from '../logging/index.ts';
import { errorText, handlerTitle } from '../progress/index.ts';
import type { EventPoster } from '../posting/index.ts';
import type { Memo } from '../registry/contexts.ts';
import type { Indices } from '../indices/indices.ts';
import type { AdmissionInfo, MutatingContext, WebhookHandler } from '../registry/webhooks.ts';
import { bodyContext, invokeHandler } from '../actions/invocation.ts';
import { callHandler } from '../handling/calls.ts';
import { handlerObserver } from '../handling/observers.ts';
import { buildResponse, refusal, type ReviewResponse } from './responses.ts';
import { parseReview } from './reviews.ts';
import { selectHandlers, webhooksOf, type ResolvedWebhook } from './selection.ts';
import type { OperatorMetrics } from '../observation/metrics.ts';
import { resourceLabel } from '../observation/resource-names.ts';

export interface AdmissionEnv {
  webhooks: readonly ResolvedWebhook[];
  /** The operator's client, which handlers get as theirs (mind `dryrun`: write nothing then). */
  client: KubeClient;
  settings: OperatorSettings;
  poster: EventPoster;
  logger: Logger;
  /** The operator's memo: each review gets a shallow copy of it. */
  memo: Memo;
  /** Aborted when the operator's handlers are cancelled. */
  cancelled: AbortSignal;
  /** The operator's indexes, for handlers to read. */
  indices: Indices;
  /** The operator's metrics, if kept: the reviews answered and the handlers run. */
  metrics?: OperatorMetrics;
}

/** The responder a webhook server calls for each request. */
export function admissionResponder(env: AdmissionEnv): WebhookResponder {
  const answer = answering(env);
  const metrics = env.metrics;
  if (!metrics) return answer;
  // The webhook's id comes with the request: only the ids of handlers are labels, whatever a caller sends.
  const known = new Set(env.webhooks.map((w) => w.handler.id));
  return async (request) => {
    const started = performance.now();
    const reply = await answer(request);
    const webhook = request.webhook !== undefined && known.has(request.webhook) ? request.webhook : '';
    metrics.webhookRequest(webhook, reply.status, (performance.now() - started) / 1000);
    return reply;
  };
}

function answering(env: AdmissionEnv): WebhookResponder {
  return async (request) => {
    try {
      return { status: 200, body: await review(env, request) };
    } catch (error) {
      if (error instanceof WebhookError) return refusal(env.logger, error.status, error.message);
      env.logger.error(`A webhook request failed unexpectedly: ${thrownText(error)}`, error);
      return statusReply(500, `The webhook request failed unexpectedly: ${thrownText(error)}`);
    }
  };
}

async function review(env: AdmissionEnv, request: WebhookRequest): Promise<ReviewResponse> {
  const parsed = parseReview(request.body);
  const candidates = webhooksOf(env.webhooks, parsed);
  if (!candidates.length) {
    const { group, version, resource } = parsed.resource;
    const name = [resource, version, group].filter(Boolean).join('.');
    throw new WebhookError(`The resource ${name} has no admission handlers.`, 404);
  }
  if (request.webhook !== undefined && !env.webhooks.some((w) => w.handler.id === request.webhook)) {
    throw new WebhookError(`There is no admission handler with the id '${request.webhook}'.`, 404);
  }
  const body = parsed.body;
  const logger = env.logger.forObject(body, { local: true });
  const patch = new Patch<KubeObject>({}, { body });
  const info: AdmissionInfo = {
    operation: parsed.operation, dryrun: parsed.dryrun, subresource: parsed.subresource, userinfo: parsed.userinfo,
    warnings: [], headers: request.headers, sslpeer: request.sslpeer, diff: diff(parsed.old, parsed.new),
  };
  const { cancelled: signal, indices } = env;
  const client = resourceClientOf(env.client);
  const parts = { resource: candidates[0]!.resource, patch, logger, memo: { ...env.memo }, client, signal, indices };
  const base = { ...bodyContext(body, parts), ...info, old: parsed.old, new: parsed.new };
  const errors: unknown[] = [];
  for (const handler of selectHandlers(candidates, parsed, request.webhook, base)) {
    const attempt = { param: handler.param, retry: 0, started: new Date(), runtime: 0 }; // never retried
    const error = await invoke(env, handler, { ...base, ...attempt });
    if (error !== undefined) errors.push(error);
  }
  // Without changes, no need to compare the object with itself.
  const changes = isEmptyPatch(patch) ? [] : toJsonPatch(patch, body);
  return buildResponse(parsed, { errors, warnings: info.warnings, patch: changes });
}

/**
 * Runs one handler; returns what it threw, or `undefined` if it passed. A validating handler gets
 * no patch. A handler still running when the API server is about to give up on the webhook fails
 * then: the client is told why, rather than that the webhook could not be reached.
 */
async function invoke(env: AdmissionEnv, handler: WebhookHandler, ctx: MutatingContext<KubeObject>): Promise<unknown> {
  const title = handlerTitle(handler.id, 'Webhook');
  const { logger } = ctx;
  logger.debug(`${title} is invoked.`);
  const seconds = answerWithin(handler.timeout);
  const controller = new AbortController();
  const cancel = () => controller.abort(env.cancelled.reason);
  env.cancelled.addEventListener('abort', cancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const limit = `the API server's timeout of ${handler.timeout} s`;
      const error = new HandlerTimeoutError(`${title} did not finish within ${seconds} s, before ${limit}.`);
      controller.abort(error);
      reject(error);
    }, seconds * 1000);
  });
  const { patch, ...withoutPatch } = ctx;
  const own = { ...withoutPatch, ...(handler.webhook === 'mutating' ? { patch } : {}), signal: controller.signal };
  const kind = handler.webhook === 'mutating' ? 'mutate' : 'validate';
  // The review's resource is known per request: its observer is made for it (none without metrics).
  const observer = env.metrics && handlerObserver(env.metrics, resourceLabel(ctx.resource), kind);
  try {
    const failed = await callHandler<Failed | undefined>({
      id: handler.id, retry: 0, object: logger.ref, observer,
      returned: () => {
        logger.info(`${title} succeeded.`);
        return undefined;
      },
      threw: (error) => {
        const { shown } = errorText(error);
        if (error instanceof HandlerTimeoutError) logger.error(shown);
        else if (error instanceof PermanentError) logger.error(`${title} failed permanently: ${shown}`);
        else logger.error(`${title} failed with an exception: ${shown}`, error);
        return { error };
      },
      // An admission handler is never retried: what fails, fails for good.
      named: (failed) => failed ? 'failure' : 'success',
    }, () => Promise.race([invokeHandler(env, logger, ctx.body, handler.fn, own), expired]));
    return failed?.error;
  } finally {
    clearTimeout(timer);
    env.cancelled.removeEventListener('abort', cancel);
  }
}

/** What a handler threw: a refusal of the review. */
interface Failed {
  readonly error: unknown;
}

/** Seconds a handler may run: the webhook's timeout less a second for the answer to travel (half, at least). */
export function answerWithin(timeout: number): number {
  return Math.max(timeout - 1, timeout / 2);
}
