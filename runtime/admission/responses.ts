/**
 * The AdmissionReview response: the verdict, the warnings, the patch, and — when handlers refused
 * — one error's message and code for the client. Kopf's choice of that one error is kept: an
 * `AdmissionError` before other permanent errors, those before temporary ones, those before any
 * other; among equals, the first handler's.
 */
import type { JsonPatchOp } from '../structs/patches.ts';
import { PermanentError, TemporaryError, inspected } from '../structs/errors.ts';
import { statusReply, type WebhookReply } from '../config/admission.ts';
import { DEBUG, WARNING, type Logger } from '../logging/index.ts';
import { AdmissionError } from './admission-errors.ts';
import type { ReviewRequest } from './reviews.ts';

export interface ReviewResponse {
  apiVersion: string;
  kind: 'AdmissionReview';
  response: {
    uid: string;
    allowed: boolean;
    warnings?: string[];
    patch?: string;
    patchType?: 'JSONPatch';
    status?: { message: string; code: number };
  };
}

export interface Outcomes {
  /** What the handlers threw, in the order they ran. */
  errors: readonly unknown[];
  warnings: readonly string[];
  /** The JSON patch of all mutations; empty if none. */
  patch: readonly JsonPatchOp[];
}

export function buildResponse(request: ReviewRequest, { errors, warnings, patch }: Outcomes): ReviewResponse {
  const response: ReviewResponse['response'] = { uid: request.uid, allowed: errors.length === 0 };
  if (warnings.length) response.warnings = warnings.map(String);
  if (patch.length) {
    response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  const chosen = chooseError(errors);
  if (chosen !== undefined) response.status = { message: messageOf(chosen), code: codeOf(chosen) };
  return { apiVersion: request.apiVersion, kind: 'AdmissionReview', response };
}

/** The error the client is told of: the highest-ranked one, the earliest among equals. */
function chooseError(errors: readonly unknown[]): unknown {
  let chosen: unknown;
  let best = Infinity;
  for (const error of errors) {
    const rank = rankOf(error);
    if (rank < best) { chosen = error; best = rank; }
  }
  return chosen;
}

function rankOf(error: unknown): number {
  if (error instanceof AdmissionError) return 0;
  if (error instanceof PermanentError) return 1;
  if (error instanceof TemporaryError) return 2;
  return 9;
}

/** The message, or what the error is if it has none (Kopf's `repr`): the client must see something. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' && error ? error : inspected(error);
}

function codeOf(error: unknown): number {
  return error instanceof AdmissionError && error.code ? error.code : 500;
}

/**
 * The refusal of a webhook request, logged and answered. A path or a method that no webhook serves
 * (404, 405) is the caller's own mistake, a scanner's or a stale configuration's, logged at debug
 * level so that callers cannot fill the log; the other refusals (a body too large, a review that
 * cannot be read) are warnings.
 */
export function refusal(logger: Logger, code: number, message: string): WebhookReply {
  const level = code === 404 || code === 405 ? DEBUG : WARNING;
  logger.log(level, `A webhook request is refused (${code}): ${message}`);
  return statusReply(code, message);
}
