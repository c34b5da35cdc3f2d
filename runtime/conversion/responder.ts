/**
 * Answering the API server's ConversionReviews: every object of a review (a list is one review)
 * converted to the version asked for, or — if one cannot be — the review failed with that
 * object's message, which the API server's caller is told. A review that cannot be read is
 * answered with a 400 saying what is wrong. Nothing a review holds stops the operator.
 */
import { WebhookError, statusReply, type WebhookRequest, type WebhookResponder } from '../config/admission.ts';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { ConversionHandler } from '../registry/conversions.ts';
import { ConversionFailure, Conversions } from './converting.ts';
import { CONVERSION_REVIEW_VERSION, parseConversionReview } from './reviews.ts';

export interface ConversionEnv {
  handlers: readonly ConversionHandler[];
  logger: Logger;
}

export interface ConversionReviewResponse {
  apiVersion: typeof CONVERSION_REVIEW_VERSION;
  kind: 'ConversionReview';
  response: {
    uid: string;
    convertedObjects: KubeObject[];
    result: { status: 'Success' } | { status: 'Failure'; message: string };
  };
}

/** The responder a webhook server calls for a conversion request. */
export function conversionResponder(env: ConversionEnv): WebhookResponder {
  const conversions = new Conversions(env.handlers);
  return async (request: WebhookRequest) => {
    try {
      return { status: 200, body: review(conversions, env.logger, request.body) };
    } catch (error) {
      if (!(error instanceof WebhookError)) throw error;
      env.logger.warning(`A conversion request is refused (${error.status}): ${error.message}`);
      return statusReply(error.status, error.message);
    }
  };
}

function review(conversions: Conversions, logger: Logger, text: string): ConversionReviewResponse {
  const request = parseConversionReview(text);
  const { uid, desiredAPIVersion, objects } = request;
  const answer = (response: Omit<ConversionReviewResponse['response'], 'uid'>): ConversionReviewResponse =>
    ({ apiVersion: CONVERSION_REVIEW_VERSION, kind: 'ConversionReview', response: { uid, ...response } });
  const converted: KubeObject[] = [];
  for (const object of objects) {
    try {
      converted.push(conversions.convert(object, desiredAPIVersion));
    } catch (error) {
      const message = error instanceof ConversionFailure ? error.message : thrownText(error);
      const { namespace, name } = object.metadata ?? {};
      const where = [namespace, name].filter(Boolean).join('/') || '(unnamed)';
      logger.error(`The conversion of ${object.kind} ${where} to ${desiredAPIVersion} failed: ${message}`);
      return answer({ convertedObjects: [], result: { status: 'Failure', message } });
    }
  }
  logger.debug(`Converted ${converted.length} object(s) to ${desiredAPIVersion}.`);
  return answer({ convertedObjects: converted, result: { status: 'Success' } });
}
