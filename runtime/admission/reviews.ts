/**
 * AdmissionReview requests as the API server sends them, read and checked: whatever is missing
 * or malformed is a `WebhookError` that says what, never a crash further on.
 */
import { isMapping } from '../structs/diffs.ts';
import { nestedDeeperThan } from '../structs/json-depth.ts';
import type { KubeObject } from '../structs/resources.ts';
import { OPERATIONS, type Operation, type UserInfo } from '../registry/webhooks.ts';
import { WebhookError } from '../config/admission.ts';

/**
 * How deeply a review's JSON may nest. Diffs, patches and clones walk objects recursively, and a
 * few thousand levels exhaust the stack; no Kubernetes object comes near this.
 */
export const MAX_REVIEW_DEPTH = 1000;

/** The versions of AdmissionReview understood here (the same as Kopf's); the answer has the request's. */
const REVIEW_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export interface ReviewRequest {
  apiVersion: string;
  uid: string;
  resource: { group: string; version: string; resource: string };
  subresource: string | null;
  operation: Operation;
  userinfo: UserInfo;
  dryrun: boolean;
  /** The object under review: the new one, or for DELETE the stored one. */
  body: KubeObject;
  old: KubeObject | undefined;
  new: KubeObject | undefined;
}

/** Parses and checks an AdmissionReview from the request's text. */
export function parseReview(text: string): ReviewRequest {
  if (nestedDeeperThan(text, MAX_REVIEW_DEPTH)) {
    throw new WebhookError(`The request's JSON is nested deeper than ${MAX_REVIEW_DEPTH} levels.`);
  }
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch (error) {
    throw new WebhookError(`The request is not JSON: ${(error as Error).message}`);
  }
  if (!isMapping(review)) throw new WebhookError('The request is not an AdmissionReview: not a JSON object.');
  if (review.kind !== 'AdmissionReview') {
    throw new WebhookError(`The request is not an AdmissionReview: its kind is ${JSON.stringify(review.kind)}.`);
  }
  const apiVersion = review.apiVersion;
  if (!REVIEW_VERSIONS.includes(apiVersion as typeof REVIEW_VERSIONS[number])) {
    const versions = `${JSON.stringify(apiVersion)}; supported: ${REVIEW_VERSIONS.join(', ')}`;
    throw new WebhookError(`Unsupported AdmissionReview version ${versions}.`);
  }
  const request = review.request;
  if (!isMapping(request)) throw new WebhookError('The AdmissionReview has no request.');
  return {
    apiVersion: apiVersion as string,
    uid: requiredText(request.uid, 'request.uid'),
    resource: resourceOf(request.resource),
    subresource: typeof request.subResource === 'string' && request.subResource ? request.subResource : null,
    operation: operationOf(request.operation),
    userinfo: userInfoOf(request.userInfo),
    dryrun: request.dryRun === true,
    ...bodiesOf(request.object, request.oldObject),
  };
}

function resourceOf(value: unknown): ReviewRequest['resource'] {
  if (!isMapping(value)) throw new WebhookError('The AdmissionReview has no request.resource.');
  return {
    group: typeof value.group === 'string' ? value.group : '',
    version: requiredText(value.version, 'request.resource.version'),
    resource: requiredText(value.resource, 'request.resource.resource'),
  };
}

function operationOf(value: unknown): Operation {
  if (!OPERATIONS.includes(value as Operation)) {
    throw new WebhookError(`Unknown operation ${JSON.stringify(value)} in the AdmissionReview.`);
  }
  return value as Operation;
}

function userInfoOf(value: unknown): UserInfo {
  if (!isMapping(value)) throw new WebhookError('User info is missing from the admission request.');
  return value as UserInfo;
}

function bodiesOf(object: unknown, oldObject: unknown): Pick<ReviewRequest, 'body' | 'old' | 'new'> {
  const new_ = isMapping(object) ? object as KubeObject : undefined;
  const old = isMapping(oldObject) ? oldObject as KubeObject : undefined;
  const body = new_ ?? old;
  if (!body) throw new WebhookError('Either old or new object is missing from the admission request.');
  return { body, old, new: new_ };
}

function requiredText(value: unknown, what: string): string {
  if (typeof value !== 'string' || !value) throw new WebhookError(`The AdmissionReview has no ${what}.`);
  return value;
}
