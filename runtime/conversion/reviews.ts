/**
 * ConversionReview requests (`apiextensions.k8s.io/v1`) as the API server sends them, read and
 * checked: whatever is missing or malformed is a `WebhookError` saying what (answered
 * with a 400), never a crash further on.
 */
import { isMapping } from '../structs/diffs.ts';
import { nestedDeeperThan } from '../structs/json-depth.ts';
import type { KubeObject } from '../structs/resources.ts';
import { WebhookError } from '../config/admission.ts';

/** The only version of ConversionReview that CRDs of `apiextensions.k8s.io/v1` send and Kopf's CRDs ask for. */
export const CONVERSION_REVIEW_VERSION = 'apiextensions.k8s.io/v1';

/** As deep as admission reviews may nest: objects are walked recursively when compared. */
const MAX_DEPTH = 1000;

export interface ConversionRequest {
  uid: string;
  /** `group/version` to convert every object to. */
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/** Parses and checks a ConversionReview from the request's text. */
export function parseConversionReview(text: string): ConversionRequest {
  if (nestedDeeperThan(text, MAX_DEPTH)) {
    throw new WebhookError(`The request's JSON is nested deeper than ${MAX_DEPTH} levels.`);
  }
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch (error) {
    throw new WebhookError(`The request is not JSON: ${(error as Error).message}`);
  }
  if (!isMapping(review)) throw new WebhookError('The request is not a ConversionReview: not a JSON object.');
  if (review.kind !== 'ConversionReview') {
    const kind = JSON.stringify(review.kind);
    throw new WebhookError(`The request is not a ConversionReview: its kind is ${kind}.`);
  }
  if (review.apiVersion !== CONVERSION_REVIEW_VERSION) {
    const got = `${JSON.stringify(review.apiVersion)}; supported: ${CONVERSION_REVIEW_VERSION}`;
    throw new WebhookError(`Unsupported ConversionReview version ${got}.`);
  }
  const request = review.request;
  if (!isMapping(request)) throw new WebhookError('The ConversionReview has no request.');
  const desiredAPIVersion = requiredText(request.desiredAPIVersion, 'request.desiredAPIVersion');
  if (!desiredAPIVersion.includes('/')) {
    throw new WebhookError(`The desired apiVersion ${JSON.stringify(desiredAPIVersion)} has no group.`);
  }
  return {
    uid: requiredText(request.uid, 'request.uid'),
    desiredAPIVersion,
    objects: objectsOf(request.objects),
  };
}

function objectsOf(value: unknown): KubeObject[] {
  if (!Array.isArray(value)) throw new WebhookError('The ConversionReview has no request.objects list.');
  return value.map((object, index) => {
    const where = `request.objects[${index}]`;
    if (!isMapping(object)) throw new WebhookError(`The ConversionReview's ${where} is not an object.`);
    requiredText(object.apiVersion, `${where}.apiVersion`);
    requiredText(object.kind, `${where}.kind`);
    if (object.metadata !== undefined && !isMapping(object.metadata)) {
      throw new WebhookError(`The ConversionReview's ${where}.metadata is not an object.`);
    }
    return object as KubeObject;
  });
}

function requiredText(value: unknown, what: string): string {
  if (typeof value !== 'string' || !value) throw new WebhookError(`The ConversionReview has no ${what}.`);
  return value;
}
